"""The final and its published results: the field and its PlaySetup (final), the final played in the
server's background (final_job), how sure each place is (places), the results published and signed
(published), and the field exported (export)."""
