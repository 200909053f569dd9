import type { ComponentChildren } from 'preact';
import { jsonOf } from './format.js';

/** A status as text (with a colour class, never colour alone). */
export function Status({ status }: { status: string }) {
  return <span class={`status status-${status}`}>{status}</span>;
}

/** An error answer: its code and message (the API's error object), announced to screen readers. */
export function ErrorBox({ error }: { error: unknown }) {
  const { code, message, details } = describe(error);
  return (
    <div class="error" role="alert">
      <strong>{code}</strong>: {message}
      {details !== undefined && Object.keys(details).length > 0 ? <Json value={details} /> : null}
    </div>
  );
}

/** Pretty-printed JSON with secrets masked. */
export function Json({ value, label }: { value: unknown; label?: string }) {
  return (
    <pre class="json" aria-label={label} tabIndex={0}>
      {jsonOf(value)}
    </pre>
  );
}

/** A page: its heading (focused on navigation) and content. */
export function Page({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section>
      <h1 tabIndex={-1}>{title}</h1>
      {children}
    </section>
  );
}

/** `Loading…` while a page's data is on its way. */
export function Loading() {
  return (
    <p class="muted" role="status">
      Loading…
    </p>
  );
}

function describe(error: unknown): { code: string; message: string; details?: object } {
  if (typeof error === 'object' && error !== null && 'code' in error && 'message' in error) {
    const details = (error as { details?: unknown }).details;
    return {
      code: String(error.code),
      message: String(error.message),
      ...(typeof details === 'object' && details !== null ? { details } : {}),
    };
  }
  return { code: 'ERROR', message: error instanceof Error ? error.message : String(error) };
}
