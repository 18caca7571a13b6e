# The race server image: one process per container; scale with replicas
# behind the proxy (docker-compose.yml). Configuration is by environment
# variables only (docs/operations.md lists them all).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /src
COPY pyproject.toml README.md ./
COPY shared ./shared
COPY server ./server
COPY client ./client
RUN pip install . && rm -rf /src

# never run as root; the data dir is only used by the embedded Redis
# (when REDIS_URL is unset) and must be writable by this user
RUN useradd --system --uid 10001 --home-dir /data --create-home canfield
USER canfield
WORKDIR /data
ENV CANFIELD_DATA_DIR=/data \
    CANFIELD_PORT=8000

EXPOSE 8000
# python:slim has no curl: ask /healthz with the interpreter we already have
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('CANFIELD_PORT', '8000'), timeout=2)"]

# SIGTERM (docker stop) starts the graceful shutdown: stop accepting,
# tell clients to reconnect elsewhere, exit within a few seconds
STOPSIGNAL SIGTERM
CMD ["canfield-race", "serve", "--host", "0.0.0.0"]
