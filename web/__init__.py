"""`yz serve`: a local web page to play along with the optimal strategy, and its JSON API.

Needs the web extra (`pip install 'yz[web]'`: FastAPI and uvicorn). The game lives in the
browser: every request carries the rules and the game's moves, the server replays them with
`yz.solver.coach.Game` and keeps no game of its own.
"""
