/**
 * A YAML text area with line numbers: the gutter follows the text's scrolling, lines with a problem are marked
 * in it, and `goTo` (through the ref) moves the caret to a line and column and scrolls it into view.
 *
 * Source: docs/decisions.md D9 (Editor: YAML edited with validation problems shown inline; a problem moves the caret to
 * its line).
 */
import { forwardRef, useId, useImperativeHandle, useRef, useState } from 'react';

/** What the page can do with the editor. */
export interface YamlEditorHandle {
  /** Focuses the text and puts the caret at 1-based `line` and `column` (clamped to the text). */
  goTo(line: number, column?: number): void;
}

/** Height of one line, in em of the text's font (editor.css sets the same line-height). */
const lineHeightEm = 1.5;

/** The editor of one file: `label` names the text area ("YAML of <file>"); `problemLines` are marked in the gutter. */
export const YamlEditor = forwardRef<YamlEditorHandle, { label: string; value: string; onChange: (text: string) => void; problemLines: Set<number>; readOnly?: boolean }>(
  function YamlEditor({ label, value, onChange, problemLines, readOnly }, ref) {
    const id = useId();
    const text = useRef<HTMLTextAreaElement>(null);
    const gutter = useRef<HTMLDivElement>(null);
    const [caretLine, setCaretLine] = useState(1);
    /** True right after Escape: the next Tab moves focus instead of indenting. */
    const escaped = useRef(false);
    const lineCount = value.split('\n').length;
    useImperativeHandle(ref, () => ({
      goTo(line, column = 1) {
        const area = text.current;
        if (!area) return;
        const lines = area.value.split('\n');
        const target = Math.min(Math.max(line, 1), lines.length);
        let offset = 0;
        for (let i = 0; i < target - 1; i++) offset += lines[i].length + 1;
        offset += Math.min(Math.max(column - 1, 0), lines[target - 1].length);
        area.focus();
        area.setSelectionRange(offset, offset);
        const lineHeight = parseFloat(getComputedStyle(area).lineHeight) || 20;
        area.scrollTop = Math.max(0, (target - 3) * lineHeight);
        setCaretLine(target);
      },
    }), []);
    const trackCaret = () => {
      const area = text.current;
      if (area) setCaretLine(area.value.slice(0, area.selectionStart).split('\n').length);
    };
    return (
      <div className="yaml-editor">
        <label htmlFor={id} className="yaml-editor-label">{label}</label>
        <div className="yaml-editor-frame">
          <div className="yaml-gutter" ref={gutter} aria-hidden="true">
            {Array.from({ length: lineCount }, (_, i) => (
              <span key={i} className={problemLines.has(i + 1) ? 'yaml-line problem' : i + 1 === caretLine ? 'yaml-line current' : 'yaml-line'} style={{ height: `${lineHeightEm}em` }}>{i + 1}</span>
            ))}
          </div>
          <textarea
            id={id} ref={text} value={value} readOnly={readOnly} spellCheck={false} autoCapitalize="off" autoCorrect="off" wrap="off"
            aria-describedby={`${id}-where`}
            onChange={(e) => { onChange(e.target.value); trackCaret(); }}
            onScroll={(e) => { if (gutter.current) gutter.current.scrollTop = e.currentTarget.scrollTop; }}
            onKeyUp={trackCaret} onClick={trackCaret}
            onKeyDown={(e) => {
              // Tab inserts two spaces (YAML indents with spaces); Escape then Tab leaves the editor.
              if (e.key !== 'Tab' || e.shiftKey || e.altKey || e.ctrlKey || e.metaKey || escaped.current) { escaped.current = e.key === 'Escape'; return; }
              e.preventDefault();
              const area = e.currentTarget;
              const { selectionStart: start, selectionEnd: end } = area;
              const next = `${area.value.slice(0, start)}  ${area.value.slice(end)}`;
              onChange(next);
              requestAnimationFrame(() => area.setSelectionRange(start + 2, start + 2));
            }}
          />
        </div>
        <p id={`${id}-where`} className="muted small yaml-where">Line {caretLine} of {lineCount}. Tab indents by two spaces; press Escape, then Tab, to leave the editor.</p>
      </div>
    );
  },
);
