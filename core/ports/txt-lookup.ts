/**
 * DNS TXT lookups, for verifying that an organization controls an e-mail domain.
 * Source: spec/platform-service.md § Authentication rule 5, § Deployment settings (PLATFORM_DNS_VERIFICATION).
 */
export interface TxtLookup {
  /**
   * The TXT records of `name`, each record's character-strings joined into one string.
   * @returns [] when the name does not exist or has no TXT record
   * @throws PlatformError `dns_failed` (502) when the lookup itself fails (timeout, refused, server failure);
   *   the message names the DNS error code, never a resolver address
   */
  txtRecords(name: string): Promise<string[]>;
}
