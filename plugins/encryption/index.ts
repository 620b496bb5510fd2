import { encryptedKey, isEncrypted } from './encrypted-key.js';
import { Keyring, KEYRING_CLASS } from './keyring.js';
import { rotateScope, type RotationProgress } from './rotation.js';
import { encryptedAttributes, PlainCache, Sealer, scopeOf } from './sealing.js';
import { encryptionErrorList, ENCRYPTION_ERRORS } from './errors.js';
import { isSealed } from './sealed.js';
import { hasSealedAttachments, openAttachment, sealAttachments } from './attachments.js';
import { exportScope, importScope, type Opener, type Recipient, type ScopeBundle } from './sharing.js';
import { type ClassModel, type Doc, type WriteContext, definePlugin } from '../../index.js';
import { tapWhen } from '../../kit/index.js';

export interface KeyringApi {
  /** Is a passphrase-opened keyring held in memory? */
  readonly unlocked: boolean;
  /** The id of the keyring document new keys go to (`~Keyring-<random>`), null when locked. */
  readonly id: string | null;
  /** Rewraps the keyring under a new passphrase (the keys stay: nothing sealed changes). */
  changePassphrase(current: string, next: string): Promise<void>;
  createScope(name: string): Promise<void>;
  scopes(): Promise<string[]>;
  exportScope(scope: string, to: Recipient): Promise<ScopeBundle>;
  importScope(bundle: ScopeBundle, opener: Opener): Promise<string>;
  rotateScope(scope: string, options?: { batchSize?: number }): Promise<RotationProgress>;
}

/** The encryption plugin's API (`getApi(stack, encryptionPlugin)`); the stack carries its members. */
export interface EncryptionApi {
  /** Opens the keyring with its passphrase (creates it on the first unlock of a database). */
  unlock(passphrase: string): Promise<void>;
  /** Forgets every unwrapped key and decrypted value. */
  lock(): void;
  readonly keyring: KeyringApi;
}

/** After the validation plugin's defaults and checks; before anything else seals or reads. */
const OPEN_STAGE = -200;

/**
 * Field-level encryption: attributes with `encrypted: true` are stored as AES-256-GCM payloads
 * `{ "~enc": 1, scope, kid, iv, ct }` under the key of the document's access scope. Validation
 * and triggers see plaintext; storage and replication see ciphertext; a stack without the key
 * (a server) reads `{ "~sealed": true, scope }` and keeps ciphertext it cannot open unchanged.
 */
export const encryptionPlugin = definePlugin({
  name: 'encryption',
  errors: encryptionErrorList,
  setup({ hooks, stack, defineConfigKey }): EncryptionApi {
    defineConfigKey(encryptedKey);
    const keyring = new Keyring(stack);
    const cache = new PlainCache();
    const sealer = new Sealer(keyring, cache);

    const api: KeyringApi = {
      get unlocked() {
        return keyring.unlocked;
      },
      get id() {
        return keyring.id;
      },
      changePassphrase: (current, next) => keyring.changePassphrase(current, next),
      createScope: (name) => keyring.createScope(name),
      scopes: () => keyring.scopes(),
      exportScope: (scope, to) => exportScope(keyring, scope, to),
      importScope: (bundle, opener) => importScope(keyring, bundle, opener),
      rotateScope: (scope, options = {}) => rotateScope(stack, keyring, scope, options.batchSize),
    };

    hooks.onOpen.tapPromise({ name: 'encryption', stage: 10 }, () => keyring.ensureClass());
    // a keyring pulled from a peer (the ingest path announces it) is merged at once when unlocked:
    // another device's keys open its documents without unlocking again
    // bound functions made once for the process, not closures per stack: they run on every write
    // (docs/benchmarks.md#code-shared-by-every-stack)
    stack.on('change', keyringChanged.bind(keyring));
    hooks.beforeValidate.tapPromise(tapWhen('encryption', sealedClasses, OPEN_STAGE), (draft, ctx) => sealer.openDraft(draft, ctx));
    // a callback tap: a document with no scope and no encrypted attribute answers without a promise
    hooks.validate.tapAsync({ name: 'encryption', stage: 20 }, checkScope.bind(keyring));
    hooks.beforeWrite.tapPromise(tapWhen('encryption', sealedClasses, 0), (doc, ctx) => sealer.sealDraft(doc, ctx));
    // an encrypted attachment attribute's file is sealed too (./attachments.ts); opened on getAttachment
    hooks.beforeWrite.tapPromise(tapWhen('encryption', hasSealedAttachments, 10), (doc, ctx) => sealAttachments(doc, ctx, keyring));
    hooks.attachmentRead.tapPromise('encryption', (data, ctx) => openAttachment(data, ctx, keyring));
    // the last tap before storage: whatever ran after sealing, an encrypted value is never stored in clear
    hooks.beforeWrite.tapPromise(tapWhen('encryption', sealedClasses, 1000), async (doc, ctx) => {
      if (ctx.op === 'delete') return doc;
      for (const attribute of Object.values(ctx.classModel.schema)) {
        const value = doc[attribute.name];
        if (isEncrypted(attribute) && value !== undefined && value !== null && !isSealed(value)) {
          throw ENCRYPTION_ERRORS.encryptionUnavailable(`"${attribute.name}" is encrypted, but it reached storage unsealed; it is not stored in clear.`, { path: attribute.name });
        }
      }
      return doc;
    });
    hooks.afterRead.tapPromise(tapWhen('encryption', sealedClasses, 0), (doc, ctx) => sealer.openRead(doc, ctx.classModel, ctx.written === true));
    hooks.onClose.tap('encryption', () => {
      keyring.lock();
      cache.clear();
    });
    return {
      unlock: (passphrase: string) => keyring.unlock(passphrase),
      lock: () => {
        keyring.lock();
        cache.clear();
      },
      keyring: api,
    };
  },
  members: (api) => ({ unlock: api.unlock, lock: api.lock, keyring: api.keyring }),
});

/** The write plan leaves the sealing taps out for a class without encrypted attributes. */
function sealedClasses(model: ClassModel): boolean {
  return encryptedAttributes(model).length > 0;
}

/** A keyring pulled from a peer (the ingest path announces it) is merged at once when unlocked. */
function keyringChanged(this: Keyring, change: { className?: string; origin?: string }): void {
  if (change.className === KEYRING_CLASS && change.origin !== 'system') void this.changed().catch(() => undefined);
}

/** The validate tap: a document's access scope must be in the keyring (answers at once when there is nothing to ask). */
function checkScope(this: Keyring, draft: Doc, ctx: WriteContext, done: (err?: Error | null) => void): void {
  // a replica stores what its peers wrote, even under scopes whose keyring entry has not arrived yet
  if (ctx.op === 'delete' || ctx.origin === 'replication') return done();
  const named = draft['~scope'];
  if (named === undefined && !sealedClasses(ctx.classModel)) return done();
  if (named === undefined && !this.unlocked) return done();
  const scope = scopeOf(draft, ctx.classModel);
  this.knowsScope(scope).then((known) => {
    if (known) return done();
    done(ENCRYPTION_ERRORS.encryptionScopeUnknown(`The access scope "${scope}" is not in the keyring; create it (stack.keyring.createScope) or import it first.`, {
      path: '~scope',
      details: { scope },
    }));
  }, (err: Error) => done(err));
}

export type { ScopeBundle, Recipient, Opener } from './sharing.js';
export type { RotationProgress } from './rotation.js';
export { KEYRING_CLASS, DEFAULT_SCOPE } from './keyring.js';
export { KEYRING_ID_PREFIX, LEGACY_KEYRING_ID, isTravellingKeyringId } from './keyring-docs.js';
export { isSealed, isSealedMarker, type SealedMarker, type SealedValue } from './sealed.js';
