import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '@ai-assistant/chat-types';
import { HostError } from '@ai-assistant/chat-types';

/** The variable that holds the encryption key(s): base64 of 32 random bytes, the newest first, comma-separated. */
export const keyVariable = 'ASSISTANT_ENCRYPTION_KEY';
/** The embedded default's key file, inside DATA_DIR. */
export const keyFileName = 'encryption.key';

const keyBytes = 32;
const ivBytes = 12;
const format = 'v1';

/** A credential that cannot be read with the configured keys. Names the server, never the secret. */
export class CredentialKeyError extends HostError {
  constructor(
    readonly server: string,
    detail: string,
  ) {
    super('CREDENTIAL_UNREADABLE', `the stored credential for server "${server}" cannot be read: ${detail}`);
    this.name = 'CredentialKeyError';
  }
}

/** A short, stable name for a key, stored beside each ciphertext; it reveals nothing of the key. */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update('ai-assistant key id').update(key).digest('hex').slice(0, 12);
}

/** A fresh random key, base64. */
export function newKey(): string {
  return randomBytes(keyBytes).toString('base64');
}

function decodeKey(text: string, where: string): Buffer {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== keyBytes)
    throw new Error(
      `${where}: a key decodes to ${key.length} bytes; each key must be 32 random bytes in base64 (make one with: openssl rand -base64 32)`,
    );
  return key;
}

/**
 * AES-256-GCM with a key id on every ciphertext: the first key encrypts, every key decrypts, so a new
 * key can be put in front and the old ones kept until `rotate-key` has re-encrypted everything.
 */
export class Keyring {
  private readonly keys = new Map<string, Buffer>();
  readonly currentId: string;

  constructor(keys: Buffer[]) {
    if (keys.length === 0) throw new Error('a keyring needs at least one key');
    for (const key of keys) this.keys.set(keyIdOf(key), key);
    this.currentId = keyIdOf(keys[0] as Buffer);
  }

  /** Whether a key of this id is configured. */
  knows(keyId: string): boolean {
    return this.keys.has(keyId);
  }

  /** Encrypts `plain`, bound to `context` (who and what it belongs to): a copied row does not decrypt elsewhere. */
  encrypt(plain: string, context: string): { secret: string; keyId: string } {
    const key = this.keys.get(this.currentId) as Buffer;
    const iv = randomBytes(ivBytes);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), data].map((part) => part.toString('base64url'));
    return { secret: [format, this.currentId, ...parts].join('.'), keyId: this.currentId };
  }

  /** Decrypts a value of {@link encrypt}; a missing or wrong key throws {@link CredentialKeyError} naming `server`. */
  decrypt(secret: string, context: string, server: string): string {
    const [version, keyId, iv, tag, data] = secret.split('.');
    if (version !== format || !keyId || iv === undefined || tag === undefined || data === undefined)
      throw new CredentialKeyError(server, 'it is not in a format this version knows');
    const key = this.keys.get(keyId);
    if (!key)
      throw new CredentialKeyError(
        server,
        `it was encrypted with key ${keyId}, which is not among the configured keys (${keyVariable} or ${keyFileName}); add that key back, or ask the person to connect again`,
      );
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      throw new CredentialKeyError(
        server,
        `key ${keyId} does not open it (the key was changed, or the row was altered)`,
      );
    }
  }
}

/** Where the keys come from, for `loadKeyring`. */
export interface KeySource {
  env: NodeJS.ProcessEnv;
  dataDir: string;
  /** PostgreSQL (shared by replicas): the key must come from the environment, never from a local file. */
  requireVariable: boolean;
  logger: Logger;
}

/** Parses `ASSISTANT_ENCRYPTION_KEY` (one key, or several comma-separated, the newest first). */
export function keysFromVariable(value: string): Buffer[] {
  return value
    .split(',')
    .filter((part) => part.trim() !== '')
    .map((part) => decodeKey(part, keyVariable));
}

/**
 * The keys: from `ASSISTANT_ENCRYPTION_KEY`, else (embedded default only) from DATA_DIR's key file,
 * created with mode 0600 on first use and announced once in the log.
 */
export async function loadKeyring(source: KeySource): Promise<{ keyring: Keyring; keyFile?: string }> {
  const variable = source.env[keyVariable];
  if (variable?.trim()) return { keyring: new Keyring(keysFromVariable(variable)) };
  if (source.requireVariable)
    throw new Error(
      `${keyVariable} is not set. With DATABASE_URL every replica must share one encryption key: set ${keyVariable} to 32 random bytes in base64 (make one with: openssl rand -base64 32) and keep it in your secret manager.`,
    );
  const keyFile = join(source.dataDir, keyFileName);
  const existing = await readFile(keyFile, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (existing !== undefined) return { keyring: new Keyring(keysFromFile(existing, keyFile)), keyFile };
  await mkdir(source.dataDir, { recursive: true });
  const key = newKey();
  await writeFile(keyFile, `${key}\n`, { mode: 0o600, flag: 'wx' });
  source.logger.info(
    { keyFile },
    `created the encryption key for stored credentials at ${keyFile} (mode 0600); back it up with ${source.dataDir}: without it the credentials cannot be read`,
  );
  return { keyring: new Keyring([Buffer.from(key, 'base64')]), keyFile };
}

function keysFromFile(text: string, keyFile: string): Buffer[] {
  const keys = text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => decodeKey(line, keyFile));
  if (keys.length === 0) throw new Error(`${keyFile} holds no key; delete it to have a new one made`);
  return keys;
}

/** Rewrites the key file with `keys` (newest first), atomically and with mode 0600. */
export async function writeKeyFile(keyFile: string, keys: string[]): Promise<void> {
  const next = `${keyFile}.next`;
  await writeFile(next, `${keys.join('\n')}\n`, { mode: 0o600 });
  await rename(next, keyFile);
}
