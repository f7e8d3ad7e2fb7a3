"""The web: Chromium driven by Playwright for search result pages and page fetches, every request
it makes answered by Lyra's own HTTP client behind the egress gate, the search engines and their
result parsers, the domain trust policy, the crawl of result and landing pages, and the
``WebBrowser`` Dagster resource that configures a session."""
