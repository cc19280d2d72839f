import { Component, type ErrorInfo, type ReactNode } from 'react';

interface Props {
  /** What failed, for the message ("this view", "the dashboard"). */
  what: string;
  children: ReactNode;
}

/** Shows a message instead of a blank page when rendering throws. */
export class ErrorBoundary extends Component<Props, { error: Error | null }> {
  state = { error: null as Error | null };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  componentDidCatch(error: Error, info: ErrorInfo) {
    console.error(`Error drawing ${this.props.what}:`, error, info.componentStack);
  }

  render() {
    if (this.state.error) {
      return (
        <div className="notice error" role="alert" data-testid="render-error">
          <h2>Could not draw {this.props.what}</h2>
          <p>{this.state.error.message}</p>
          <p>Other views and runs may still work; pick one above, or reload the page.</p>
        </div>
      );
    }
    return this.props.children;
  }
}
