/**
 * WAYMARK_TLS_CERT / WAYMARK_TLS_KEY: PEM files of the server certificate (chain) and its private
 * key. Both set: the server speaks HTTPS only. A missing, unreadable or mismatched file stops
 * start-up with one line naming the variable; the key's content never appears in a message.
 */
import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { ConfigError } from './config.ts';

export interface TlsFiles {
  cert: Buffer;
  key: Buffer;
  certPath: string;
  keyPath: string;
}

type Env = Record<string, string | undefined>;

export function readTls(env: Env): TlsFiles | null {
  const certPath = env.WAYMARK_TLS_CERT?.trim() || '';
  const keyPath = env.WAYMARK_TLS_KEY?.trim() || '';
  if (certPath === '' && keyPath === '') return null;
  if (certPath === '') throw new ConfigError('WAYMARK_TLS_CERT: must be set together with WAYMARK_TLS_KEY (the certificate file, PEM).');
  if (keyPath === '') throw new ConfigError('WAYMARK_TLS_KEY: must be set together with WAYMARK_TLS_CERT (the private key file, PEM).');
  const cert = readPem('WAYMARK_TLS_CERT', certPath, /-----BEGIN CERTIFICATE-----/, 'a PEM certificate');
  const key = readPem('WAYMARK_TLS_KEY', keyPath, /-----BEGIN [A-Z ]*PRIVATE KEY-----/, 'a PEM private key');
  try {
    tls.createSecureContext({ cert });
  } catch {
    throw new ConfigError(`WAYMARK_TLS_CERT: ${certPath} does not hold a certificate Node.js can read.`);
  }
  try {
    tls.createSecureContext({ cert, key });
  } catch {
    throw new ConfigError(`WAYMARK_TLS_KEY: ${keyPath} is not a readable, unencrypted private key for the certificate in WAYMARK_TLS_CERT.`);
  }
  return { cert, key, certPath: path.resolve(certPath), keyPath: path.resolve(keyPath) };
}

function readPem(name: string, file: string, marker: RegExp, what: string): Buffer {
  let content: Buffer;
  try {
    content = fs.readFileSync(file);
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : 'cannot be read';
    throw new ConfigError(`${name}: ${file} ${why}.`);
  }
  if (!marker.test(content.toString('latin1'))) throw new ConfigError(`${name}: ${file} is not ${what}.`);
  return content;
}
