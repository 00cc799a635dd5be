"""What Kodama Duo and the Kodama draft share: the card set (cards.py, cards.json), the tree
scoring rules (rules.py) and the table both variants play on (common.py)."""
