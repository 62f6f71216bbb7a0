import { memo, useMemo, useState, type ReactNode } from "react";
import { createIncrementalMarkdown } from "./incremental-markdown";
import type { Block, Inline } from "./parse-markdown";

function renderInline(nodes: readonly Inline[], keyPrefix: string): ReactNode[] {
  return nodes.map((node, index) => {
    const key = `${keyPrefix}.${index}`;
    switch (node.type) {
      case "text":
        return node.value;
      case "break":
        return <br key={key} />;
      case "code":
        return <code key={key}>{node.value}</code>;
      case "strong":
        return <strong key={key}>{renderInline(node.children, key)}</strong>;
      case "em":
        return <em key={key}>{renderInline(node.children, key)}</em>;
      case "del":
        return <del key={key}>{renderInline(node.children, key)}</del>;
      case "link":
        return (
          <a key={key} href={node.href} target="_blank" rel="noopener noreferrer nofollow">
            {renderInline(node.children, key)}
          </a>
        );
    }
  });
}

function renderBlock(block: Block, key: string): ReactNode {
  switch (block.type) {
    case "paragraph":
      return <p key={key}>{renderInline(block.children, key)}</p>;
    case "heading": {
      // Inside a chat message, headings stay below the page's own h1/h2.
      const Tag = (["h3", "h4", "h5", "h6", "h6", "h6"] as const)[block.level - 1] ?? "h6";
      return <Tag key={key}>{renderInline(block.children, key)}</Tag>;
    }
    case "code":
      return (
        <pre key={key} tabIndex={0} aria-label={block.language ? `${block.language} code` : "code"}>
          <code>{block.value}</code>
        </pre>
      );
    case "list": {
      const items = block.items.map((item, index) => <li key={`${key}.${index}`}>{renderInline(item, `${key}.${index}`)}</li>);
      return block.ordered ? (
        <ol key={key} start={block.start === 1 ? undefined : block.start}>
          {items}
        </ol>
      ) : (
        <ul key={key}>{items}</ul>
      );
    }
    case "quote":
      return <blockquote key={key}>{block.children.map((child, index) => renderBlock(child, `${key}.${index}`))}</blockquote>;
    case "rule":
      return <hr key={key} />;
    case "table":
      return (
        <div key={key} className="markdown-table" tabIndex={0} role="region" aria-label="table">
          <table>
            <thead>
              <tr>
                {block.header.map((cell, column) => (
                  <th key={column} style={{ textAlign: block.align[column] ?? undefined }}>
                    {renderInline(cell, `${key}.h${column}`)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {block.rows.map((row, rowIndex) => (
                <tr key={rowIndex}>
                  {row.map((cell, column) => (
                    <td key={column} style={{ textAlign: block.align[column] ?? undefined }}>
                      {renderInline(cell, `${key}.${rowIndex}.${column}`)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
  }
}

/** One block; finished blocks keep their object while the answer streams, so memo skips them. */
const MarkdownBlock = memo(function RenderedBlock({ block, id }: { block: Block; id: string }) {
  return renderBlock(block, id);
});

/**
 * Renders the safe Markdown subset of parse-markdown.ts as React elements (never raw HTML).
 * While the text streams in, each new chunk parses only the unfinished end of it.
 */
export const Markdown = memo(function RenderedMarkdown({ text }: { text: string }) {
  const [parser] = useState(createIncrementalMarkdown);
  const blocks = useMemo(() => parser.update(text), [parser, text]);
  return (
    <>
      {blocks.map((block, index) => (
        <MarkdownBlock key={`b${index}`} block={block} id={`b${index}`} />
      ))}
    </>
  );
});
