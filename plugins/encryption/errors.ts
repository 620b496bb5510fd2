import { createError } from '../../index.js';

/** The error codes of the encryption plugin (docs/errors.md). */
export const ENCRYPTION_ERRORS = {
  attributeEncryptedSimple: createError('DS_ATTRIBUTE_ENCRYPTED_SIMPLE', 'A simple class cannot have encrypted attributes.'),
  attributeEncryptedPrimaryKey: createError('DS_ATTRIBUTE_ENCRYPTED_PRIMARY_KEY', 'A primary-key attribute cannot be encrypted.'),
  encryptionUnavailable: createError('DS_ENCRYPTION_UNAVAILABLE', 'An encrypted attribute reached storage unsealed; it is refused, never stored in clear.'),
  encryptionLocked: createError('DS_ENCRYPTION_LOCKED', 'The key of the scope is not held (the stack is locked, or the scope was never shared with it).'),
  encryptionPassphrase: createError('DS_ENCRYPTION_PASSPHRASE', 'The passphrase does not open the keyring (or the key bundle).'),
  encryptionScopeUnknown: createError('DS_ENCRYPTION_SCOPE_UNKNOWN', 'The document names an access scope the keyring does not know.'),
  encryptionScopeExists: createError('DS_ENCRYPTION_SCOPE_EXISTS', 'The keyring already has a scope with that name.', { status: 409 }),
  encryptionIntegrity: createError('DS_ENCRYPTION_INTEGRITY', 'A ciphertext failed to open: tampered, or moved from another document or attribute.'),
  encryptionKeyring: createError('DS_ENCRYPTION_KEYRING', 'The keyring (or a key bundle) is malformed or in an unexpected state.'),
};

/** For `definePlugin({ errors })`. */
export const encryptionErrorList = Object.values(ENCRYPTION_ERRORS);
