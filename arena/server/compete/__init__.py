"""A participant's routes beyond the ladder: choosing the version that plays and challenges (api_challenges,
pages_challenges), and playing the ladder's bots in person (pages_play)."""
