"""The organiser's competition on the HTTP edge: its phases and a class's accounts (api_competition,
pages_competition: the banner, the phase gate, the admin page's controls), the final and its published
results (results_pages: /results, the downloads, the admin page's buttons)."""
