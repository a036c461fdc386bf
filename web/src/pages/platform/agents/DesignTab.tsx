/**
 * An environment's Design tab (Maintainers and Administrators of the agent): a chat with the design agent on the
 * environment's draft (./DesignChat.tsx) on the left; on the right the draft's files with a read-only viewer, and the
 * unpublished changes as a line diff per file with Publish (./DesignFiles.tsx). Both are read again after every
 * design run. Without a design agent the tab says what to set, verbatim, and offers no message box. A first message
 * handed over by the agent creation form ("Describe what it should do") is sent as a new chat once the tab knows a
 * design agent is configured. At 375 px everything stacks in one column.
 *
 * Source: issue "The design agent" § Front doors (a Design tab: chat, files, a diff of unpublished changes, Publish);
 * docs/decisions.md D21.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useState } from 'react';
import { ApiError } from '../../../api/client.ts';
import { ErrorMessage, Loading } from '../../../ui/kit.tsx';
import type { Conversation } from '../chat/conversation.ts';
import '../chat/chat.css';
import { DesignChat } from './DesignChat.tsx';
import { DesignFiles } from './DesignFiles.tsx';
import {
  currentDesignConversation, designKeys, newDesignConversation, rememberDesignConversation, takeFirstMessage, useDesign,
} from './design-queries.ts';

/** Whether GET …/design answered 404: the member is below Maintainer (the tab is not offered then). */
export const designRefused = (error: unknown): boolean => error instanceof ApiError && error.status === 404;

/** The Design tab of `env` of agent id `agent`. */
export function DesignTab({ agent, env }: { agent: string; env: string }) {
  const design = useDesign(agent, env);
  const client = useQueryClient();
  const [conversation, setConversation] = useState<Conversation | undefined>(
    () => currentDesignConversation(agent, env),
  );
  const [unsent, setUnsent] = useState<string | undefined>();
  const choose = useCallback((next: Conversation | undefined) => {
    rememberDesignConversation(agent, env, next);
    setConversation(next);
  }, [agent, env]);
  const refresh = useCallback(() => {
    void client.invalidateQueries({ queryKey: designKeys.design(agent, env) });
    void client.invalidateQueries({ queryKey: designKeys.files(agent, env) });
  }, [agent, env, client]);
  const configured = design.data?.configured;
  useEffect(() => {
    if (configured === undefined) return;
    const first = takeFirstMessage(agent, env);
    if (first === undefined) return;
    if (!configured) {
      setUnsent(first);
      return;
    }
    const started = newDesignConversation(agent, env);
    choose(started);
    void started.send(first);
  }, [configured, agent, env, choose]);

  if (design.isPending) return <Loading what="Loading the design agent" />;
  if (design.isError) {
    return designRefused(design.error)
      ? <ErrorMessage error={design.error} title="The Design tab is for Maintainers and Administrators of the agent" />
      : <ErrorMessage error={design.error} retry={() => void design.refetch()} />;
  }
  return (
    <div className="design-tab">
      <section className="card design-chat" aria-labelledby="design-chat-heading">
        {design.data.configured ? (
          <DesignChat
            agent={agent} env={env} info={design.data} conversation={conversation}
            onChoose={choose} onRunEnded={refresh}
          />
        ) : (
          <>
            <h2 id="design-chat-heading">Design chat</h2>
            <p className="notice pre-wrap" role="status">{design.data.setup}</p>
            {unsent ? (
              <p className="small">
                Your description was not sent: <span className="pre-wrap">{unsent}</span>
              </p>
            ) : null}
          </>
        )}
      </section>
      <DesignFiles agent={agent} env={env} />
    </div>
  );
}
