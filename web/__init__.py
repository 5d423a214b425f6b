"""`yz serve`: a local web page to play along with the optimal strategy, and its JSON API.

Needs the web extra (`pip install 'yz[web]'`: FastAPI, uvicorn, fastapi-offline). The game
lives in the browser: every request carries the rules and the game's moves, the server replays
them with `yz.solver.coach.Game` and keeps no game of its own.

    app        the FastAPI app: routes, error answers, the API docs from local files
    guards     what every request passes first: Host and origin, body size, security headers
    rulesets   rule sets by name or pasted YAML, read under the server's bounds
    solving    solved strategies: from the disk cache, or solved one at a time, cancellable
    server     uvicorn with a deadline per request and a connection cap; binding the port
    settings   the limits of one server
"""
