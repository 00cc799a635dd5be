"""Statistics over stored results: ratings and the TrueSkill kernel (ratings.py, kernel.py,
standings.py; the chains' generator chain_source.py, whose output is generated/), bootstrap uncertainty
(uncertainty.py, tdist.py), the stop rule (stoprule.py), collusion (collusion.py) and the seat analysis
(seating.py)."""
