/**
 * An environment's Skills tab (Maintainers and Administrators of the agent, as the Design tab): the skill registries
 * the deployment follows, each with its URL, state, the commit served, its skill count and its last failed update,
 * then its skills (name, slug, description, files). A skill whose SKILL.md does not validate lists its problems and
 * offers nothing; the others offer "Add to draft" (or "Update in draft" when the draft already holds
 * `skills/<slug>/SKILL.md`), which copies the bundle into the environment's draft; the draft's files are then read
 * again so the "In the draft" badge shows. Publishing is the existing Publish (Overview, Design tab). At 375 px
 * everything stacks in one column and long URLs and commit ids wrap.
 *
 * Source: spec/platform-service.md § Rules 16, § Endpoints (GET /api/skill-registries); issue "Skill registries, and
 * collections with per-organization credentials and OAuth apps" § Skill registries.
 */
import { Link } from 'wouter';
import { Button, ErrorMessage, Loading, RelativeTime } from '../../../ui/kit.tsx';
import { useDraftFiles } from './design-queries.ts';
import {
  draftSkillSlugs, type RegistrySkill, servedCommits, type SkillRegistryStatus, useCopySkill, useRegistrySkills,
  useSkillRegistries,
} from './skill-queries.ts';

/** The first characters of a commit id shown. */
const shortCommit = (commit: string) => commit.slice(0, 12);
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The Skills tab of `env` of agent id `agent`; `designHref` is the environment's Design tab (its Publish). */
export function SkillsTab({ agent, env, designHref }: { agent: string; env: string; designHref: string }) {
  const registries = useSkillRegistries();
  const list = registries.data;
  const skills = useRegistrySkills(list && list.length > 0 ? servedCommits(list) : undefined);
  const files = useDraftFiles(agent, env);
  const inDraft = draftSkillSlugs(files.data?.map((f) => f.path) ?? []);
  return (
    <div className="skills-tab">
      <h2>Skills</h2>
      <p className="small muted">
        Copy a skill of a registry this deployment follows into the draft of <strong>{env}</strong>: its files land
        in <code>skills/&lt;slug&gt;/</code> (an older copy is replaced), and it goes live with the next Publish
        (<Link href={designHref}>Design tab</Link> or Overview).
      </p>
      {files.isError ? (
        <ErrorMessage error={files.error} retry={() => void files.refetch()}
          title="The draft’s files could not be read: which skills it holds is unknown" />
      ) : null}
      {registries.isPending ? <Loading what="Loading the skill registries" />
        : registries.isError ? <ErrorMessage error={registries.error} retry={() => void registries.refetch()} />
        : registries.data.length === 0 ? (
          <div className="empty">
            <p><strong>This deployment follows no skill registry.</strong></p>
            <p>
              The config’s <code>skillRegistries</code> lists them: the https URLs of public git repositories
              holding <code>skills/&lt;slug&gt;/SKILL.md</code> bundles.
            </p>
          </div>
        ) : (
          <>
            {skills.isError ? <ErrorMessage error={skills.error} retry={() => void skills.refetch()} /> : null}
            {registries.data.map((registry) => (
              <Registry
                key={registry.id} agent={agent} env={env} registry={registry} inDraft={inDraft}
                skills={skills.data?.filter((s) => s.registry === registry.id)} loading={skills.isPending}
              />
            ))}
          </>
        )}
    </div>
  );
}

const stateBadge = {
  cloning: ['badge-warn', 'cloning'], ready: ['badge-ok', 'ready'], failed: ['badge-error', 'update failed'],
} as const;

/** A registry: its header line, then its skills. */
function Registry({ agent, env, registry, skills, loading, inDraft }: {
  agent: string; env: string; registry: SkillRegistryStatus; skills: RegistrySkill[] | undefined; loading: boolean;
  inDraft: Set<string>;
}) {
  const headingId = `skill-registry-${registry.id}`;
  const [badgeClass, stateText] = stateBadge[registry.state];
  return (
    <section className="card skill-registry" aria-labelledby={headingId}>
      <div className="skill-registry-head">
        <h3 id={headingId}>{registry.id}</h3>
        <span className={`badge ${badgeClass}`}>{stateText}</span>
      </div>
      <p className="skill-registry-url"><code>{registry.url}</code></p>
      <p className="skill-registry-facts small">
        {registry.commit ? <>commit <code title={registry.commit}>{shortCommit(registry.commit)}</code> · </> : null}
        {plural(registry.skills, 'skill')}
        {registry.updatedAt ? <> · updated <RelativeTime at={registry.updatedAt} /></> : null}
      </p>
      {registry.lastFailure ? (
        <p className="warning skill-registry-failure small">
          Last update failed: {registry.lastFailure.message};
          {registry.commit ? ' serving the last clone' : ' no clone yet'}
          {' '}(<RelativeTime at={registry.lastFailure.at} />).
        </p>
      ) : null}
      {registry.state === 'cloning' && !registry.commit ? <Loading what="Cloning the registry" />
        : loading ? <Loading what="Loading its skills" />
        : !skills ? null
        : skills.length === 0 ? <p className="empty">No skills here: no <code>skills/&lt;slug&gt;/SKILL.md</code>.</p>
        : (
          <ul className="skill-list" aria-label={`Skills of ${registry.id}`}>
            {skills.map((skill) => (
              <SkillCard key={skill.slug} agent={agent} env={env} skill={skill} present={inDraft.has(skill.slug)} />
            ))}
          </ul>
        )}
    </section>
  );
}

/** One skill: name, slug, description, files; its problems, or Add / Update with what the copy wrote. */
function SkillCard({ agent, env, skill, present }: {
  agent: string; env: string; skill: RegistrySkill; present: boolean;
}) {
  const copy = useCopySkill(agent, env);
  const ref = `${skill.registry}/${skill.slug}`;
  const done = copy.data;
  const valid = skill.problems.length === 0;
  return (
    <li className={valid ? 'skill-card' : 'skill-card skill-invalid'}>
      <div className="skill-card-head">
        <h4>{skill.name || skill.slug} <code className="skill-slug">({skill.slug})</code></h4>
        {present ? <span className="badge badge-ok">In the draft</span> : null}
      </div>
      {skill.description ? <p className="skill-description">{skill.description}</p> : null}
      <p className="small muted skill-files">{plural(skill.files, 'file')}</p>
      {!valid ? (
        <div className="skill-problems small muted">
          <p>Its SKILL.md does not validate, so it cannot be added:</p>
          <ul aria-label={`Problems of ${ref}`}>
            {skill.problems.map((problem) => <li key={problem}><code>{problem}</code></li>)}
          </ul>
        </div>
      ) : (
        <div className="skill-actions">
          <Button
            kind={present ? 'secondary' : 'primary'} busy={copy.isPending}
            aria-label={present ? `Update ${ref} in the draft` : `Add ${ref} to the draft`}
            onClick={() => copy.mutate({ registry: skill.registry, skill: skill.slug })}
          >{present ? 'Update in draft' : 'Add to draft'}</Button>
          {done ? (
            <p className="skill-copied small" role="status">
              Added {ref} (commit <code>{shortCommit(done.registryCommit)}</code>):
              {' '}{plural(done.written.length, 'file')} written
              {done.deleted.length > 0 ? <>, {plural(done.deleted.length, 'file')} deleted</> : null}.
            </p>
          ) : null}
          {copy.isError ? <ErrorMessage error={copy.error} title={`${ref} was not added`} /> : null}
        </div>
      )}
    </li>
  );
}
