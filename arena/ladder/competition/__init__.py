"""A competition around the ladder: its phases and deadline, the final, published results, quotas and
budgets, the version a participant chooses, challenges, and the operations (backup, the data folder's lock)."""
