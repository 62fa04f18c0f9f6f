import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { ApiProvider } from './api/api-context';
import { createApi } from './api/create-api';
import { withEarlyCalls } from './api/early-calls';
import { startFirstViewCalls } from './first-view-calls';
import { parseRoute } from './router/route';
import './styles.css';

const container = document.getElementById('root');
if (!container) throw new Error('#root element missing from index.html');

// Chosen once, before anything renders: the rest of the UI only sees the API.
const early = withEarlyCalls(createApi(window));
startFirstViewCalls(early.start, parseRoute(window.location.hash));
const api = early.api;

createRoot(container).render(
  <StrictMode>
    <ApiProvider api={api}>
      <App />
    </ApiProvider>
  </StrictMode>,
);
