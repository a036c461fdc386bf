/**
 * Base64 helpers on the web-standard `btoa`/`atob` (Node, Bun and Deno), for sealed secret records.
 *
 * Source: spec/platform-service.md § Deployment settings (MASTER_KEY: 32 bytes, base64).
 */

/** Standard base64 (with padding) of `bytes`. */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * Decodes standard or URL-safe base64, padded or not.
 * @returns the bytes, or undefined when `text` is not base64
 */
export function fromBase64(text: string): Uint8Array | undefined {
  const standard = text.replace(/-/g, '+').replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(standard) || standard.replace(/=+$/, '').length % 4 === 1) return undefined;
  const padded = standard.replace(/=+$/, '').padEnd(Math.ceil(standard.replace(/=+$/, '').length / 4) * 4, '=');
  try {
    const binary = atob(padded);
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}
