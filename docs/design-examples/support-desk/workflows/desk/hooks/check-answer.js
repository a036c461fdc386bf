// An after hook: refuses to leave the state while the answer is empty or too long for the help desk.
export default function check({ variables }) {
  const answer = String(variables.answer ?? '');
  if (answer.trim() === '') return { ok: false, message: 'Set the variable answer before you advance.' };
  if (answer.length > 2000) return { ok: false, message: 'Shorten the answer to at most 2000 characters.' };
  return { ok: true };
}
