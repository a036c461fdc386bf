/** Identifier and randomness source, so domain code stays deterministic under test. */
export interface Ids {
  /** A new unique identifier (URL-safe, at least 96 bits of entropy), e.g. for documents. */
  newId(): string;
  /** `byteLength` cryptographically random bytes. */
  randomBytes(byteLength: number): Uint8Array;
  /** Lower-case hex SHA-256 digest of `data` (UTF-8 for strings). */
  sha256Hex(data: string | Uint8Array): Promise<string>;
}
