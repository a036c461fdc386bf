/**
 * Runs s3rver in its own process for the tests (started by test/helpers/s3-server.ts).
 * Run with `node --openssl-legacy-provider`: s3rver encrypts ListObjectsV2 continuation tokens with DES.
 *
 * Arguments: <directory> <bucket>. Environment: S3RVER_EXTRA_KEY_ID / S3RVER_EXTRA_SECRET add one
 * access key pair besides s3rver's built-in S3RVER/S3RVER.
 * Prints one JSON line `{"port": N}` once it listens on 127.0.0.1 (a port the OS chose); exits on SIGTERM.
 */
'use strict';
const S3rver = require('s3rver');
const { DUMMY_ACCOUNT } = require('s3rver/lib/models/account');

async function main() {
  const [directory, bucket] = process.argv.slice(2);
  if (!directory || !bucket) throw new Error('usage: s3rver-runner.cjs <directory> <bucket>');
  const keyId = process.env.S3RVER_EXTRA_KEY_ID;
  const secret = process.env.S3RVER_EXTRA_SECRET;
  if (keyId && secret) DUMMY_ACCOUNT.createKeyPair(keyId, secret);
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  process.stdout.write(`${JSON.stringify({ port })}\n`);
  // Nothing to flush: objects are files already written. Exit at once (close() would wait for keep-alive sockets).
  process.once('SIGTERM', () => process.exit(0));
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});
