/**
 * A connection's endpoint token just made (on create, on a switch to Endpoint token, or regenerated), shown
 * this once with a copy button and the protocol's example using it. The token is in force at once; a
 * regenerated one replaces the old, which stops working at once. Closing the panel forgets it.
 *
 * Source: spec/platform-service.md § Incoming connection authentication; docs/decisions.md D10 (Connections).
 */
import type { ConnectionAnswer } from '../../../../../core/connection/api-views.ts';
import { Button, CopyButton } from '../../../ui/kit.tsx';
import { exampleOf } from './labels.ts';

/** The panel for `answer` (which carries `token`); `regenerated` words the old token's end. */
export function TokenPanel({ answer, regenerated, onClose }: { answer: ConnectionAnswer & { token: string }; regenerated: boolean; onClose: () => void }) {
  const example = exampleOf(answer.connection, answer.token);
  return (
    <section className="card new-token" aria-labelledby="conn-token-heading">
      <h3 id="conn-token-heading">Endpoint token of <code>{answer.connection.identifier}</code></h3>
      <p className="warning" role="status">
        <strong>Copy it now.</strong> This is the only time the token is shown: cairn keeps only a digest of it. It is in force at once
        {regenerated ? '; the previous token stopped working.' : '.'}
      </p>
      <code className="token-value" aria-label="Endpoint token">{answer.token}</code>
      <div className="actions"><CopyButton text={answer.token} label="Copy token" /></div>
      <h4>{example.title}</h4>
      <pre className="config-pre" tabIndex={0} aria-label={example.title}>{example.text}</pre>
      <div className="actions">
        <CopyButton text={example.text} label="Copy example" />
        <Button kind="primary" onClick={onClose}>Close and forget the token</Button>
      </div>
    </section>
  );
}
