/** Editor: placeholder until the page is built (issue 9). */
export function EditorPage({ slug }: { slug: string }) {
  return <p>The Editor page of {slug} is not built yet.</p>;
}
