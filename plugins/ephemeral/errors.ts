import { createError } from '../../index.js';

/** The error codes of the ephemeral plugin (docs/errors.md). */
export const EPHEMERAL_ERRORS = {
  replicated: createError('DS_EPHEMERAL_REPLICATED', 'A document of an ephemeral class arrived from a peer: ephemeral documents stay on the peer that wrote them.', { status: 403 }),
};

/** For `definePlugin({ errors })`. */
export const ephemeralErrorList = Object.values(EPHEMERAL_ERRORS);
