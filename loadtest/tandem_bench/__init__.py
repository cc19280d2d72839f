"""Offline core of Tandem's bench lab: parse k6/ghz output, summarize, validate, write, report."""
