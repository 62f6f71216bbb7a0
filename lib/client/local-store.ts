/**
 * A value kept in localStorage (or, when asked, sessionStorage: this tab only, gone when it
 * closes), validated with zod when read (the storage is user-editable), shared by every
 * component through useSyncExternalStore and kept in step across tabs.
 */
import { useSyncExternalStore } from "react";
import type { z } from "zod";

export type LocalStore<T> = {
  get(): T;
  set(next: T | ((previous: T) => T)): void;
  subscribe(listener: () => void): () => void;
};

export function createLocalStore<T>(key: string, schema: z.ZodType<T>, fallback: T, options: { area?: "local" | "session" } = {}): LocalStore<T> {
  const storage = () => (options.area === "session" ? window.sessionStorage : window.localStorage);
  let cached: T | undefined;
  const listeners = new Set<() => void>();

  const read = (): T => {
    if (cached !== undefined) return cached;
    if (typeof window === "undefined") return fallback;
    let value = fallback;
    try {
      const raw = storage().getItem(key);
      if (raw !== null) {
        const parsed = schema.safeParse(JSON.parse(raw));
        if (parsed.success) value = parsed.data;
      }
    } catch {
      // Unreadable or blocked storage: keep the fallback.
    }
    cached = value;
    return value;
  };

  const notify = () => {
    for (const listener of listeners) listener();
  };

  const onStorage = (event: StorageEvent) => {
    if (event.key !== key) return;
    cached = undefined;
    notify();
  };

  return {
    get: read,
    set(next) {
      const value = typeof next === "function" ? (next as (previous: T) => T)(read()) : next;
      cached = value;
      try {
        storage().setItem(key, JSON.stringify(value));
      } catch {
        // Storage full or disabled: the value still lives for this page.
      }
      notify();
    },
    subscribe(listener) {
      listeners.add(listener);
      if (listeners.size === 1 && typeof window !== "undefined") window.addEventListener("storage", onStorage);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && typeof window !== "undefined") window.removeEventListener("storage", onStorage);
      };
    },
  };
}

/** The store's current value; the fallback during server rendering. */
export function useLocalStore<T>(store: LocalStore<T>, fallback: T): T {
  return useSyncExternalStore(store.subscribe, store.get, () => fallback);
}
