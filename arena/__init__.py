"""Where bots meet: matches, the league and its store, the web page."""
