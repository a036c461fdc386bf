/** Base64url (RFC 4648 § 5, no padding) of `bytes`; runtime-neutral (uses `btoa`). */
export function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
