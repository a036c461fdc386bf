/** The web app's entry: React, TanStack Query for server state, the app (web/src/app/App.tsx). */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiError } from './api/client.ts';
import { App } from './app/App.tsx';
import './styles.css';

const queries = new QueryClient({
  defaultOptions: {
    // A 4xx will not change by asking again; a lost answer might.
    queries: { retry: (count, error) => count < 2 && !(error instanceof ApiError && error.status >= 400 && error.status < 500), refetchOnWindowFocus: false },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queries}><App /></QueryClientProvider>
  </StrictMode>,
);
