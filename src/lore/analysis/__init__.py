"""Analysis of rules and scenarios: simulating many sessions with bots, and later exact
odds and solvers."""
