"""``arena host``: a competition server (accounts, uploads, a continuous ladder) as one
Starlette application served by uvicorn."""
