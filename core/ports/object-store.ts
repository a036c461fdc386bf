/**
 * Object store port: the only durable store for bytes (S3 in production, a directory when embedded).
 * Keys are `/`-separated paths without a leading slash.
 *
 * Source: spec/platform-service.md § Rules 5; docs/architecture.md § Ports and adapters (ObjectStore).
 */
export interface ObjectStore {
  /** Writes `body` at `key`, replacing any object there. Readers see either the old or the new object, never a mix. */
  put(key: string, body: Uint8Array, options?: { contentType?: string }): Promise<void>;
  /** The object's bytes, or null when there is none. */
  get(key: string): Promise<Uint8Array | null>;
  /** Size in bytes of the object, or null when there is none. */
  head(key: string): Promise<{ size: number } | null>;
  /** Removes the object; a missing object is not an error. */
  delete(key: string): Promise<void>;
  /** Keys under `prefix`, in lexicographic order. */
  list(prefix: string): Promise<string[]>;
}
