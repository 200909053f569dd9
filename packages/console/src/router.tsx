import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** Where `weft server` serves the console. */
export const BASE = '/console';

const listeners = new Set<() => void>();

/** Goes to `path` (under {@link BASE}) without a reload. */
export function navigate(path: string, replace = false): void {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  for (const listener of listeners) listener();
}

/** The page's URL, re-rendering on every navigation (links, back and forward). */
export function useLocation(): URL {
  const [url, setUrl] = useState(() => new URL(location.href));
  useEffect(() => {
    const update = () => setUrl(new URL(location.href));
    listeners.add(update);
    addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      removeEventListener('popstate', update);
    };
  }, []);
  return url;
}

/** A link inside the console: a plain `<a>` that navigates without a reload on a plain click. */
export function Link(props: JSX.HTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const onClick = (event: JSX.TargetedMouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) {
      return;
    }
    event.preventDefault();
    navigate(props.href);
  };
  return <a {...props} onClick={onClick} />;
}

/** `/console/executions/abc` → `['executions', 'abc']`. */
export function segmentsOf(pathname: string): string[] {
  const rest = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname;
  return rest
    .split('/')
    .filter((part) => part !== '')
    .map((part) => decodeURIComponent(part));
}
