import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { registerChartJs } from './chartConfig';
import { ErrorBoundary } from './components/ErrorBoundary';
import './styles.css';

registerChartJs();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ErrorBoundary what="the dashboard">
      <App />
    </ErrorBoundary>
  </StrictMode>,
);
