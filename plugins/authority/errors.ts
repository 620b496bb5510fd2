import { createError } from '../../index.js';

/** The error codes of the authority plugin: sequences and unique attributes (docs/errors.md). */
export const AUTHORITY_ERRORS = {
  sequenceReadonly: createError('DS_SEQUENCE_READONLY', 'A sequence attribute gets its number from the node: a writer cannot set or change it, nor its pending marker.'),
  sequenceUnissued: createError('DS_SEQUENCE_UNISSUED', 'A peer sent a sequence number the node never issued (above the counter), or one another document holds.', { status: 403 }),
  sequenceName: createError('DS_SEQUENCE_NAME_INVALID', 'A sequence name or a count asked of the node is malformed (a name: a letter or digit, then letters, digits and _ . -, at most 100; a count: 1 to 10,000).'),
  sequenceUnknown: createError('DS_SEQUENCE_UNKNOWN', 'No class attribute of the node draws from a sequence by that name, so the node hands out no numbers of it.', { status: 404 }),
  authorityOffline: createError('DS_AUTHORITY_OFFLINE', 'The node could not be asked (not connected, unreachable or refusing): the write goes on offline when it can.', { status: 503 }),
};

export const authorityErrorList = Object.values(AUTHORITY_ERRORS);
