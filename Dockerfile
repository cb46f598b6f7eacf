# syntax=docker/dockerfile:1
# The Slack bot with the MCP servers its config starts, as one self-contained folder (scripts/deploy.mjs).
# Build: docker build -t ai-assistant .   Run: docker run --env-file .env ai-assistant

FROM node:20-slim AS build
WORKDIR /src
RUN npm install -g pnpm@10.34.9
COPY . .
RUN pnpm install --frozen-lockfile \
 && pnpm build \
 && node scripts/deploy.mjs /app

FROM node:20-slim
ENV NODE_ENV=production \
    MCP_ENABLED=true \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=build --chown=node:node /app /app
# The embedded store (people's encrypted credentials, workspace settings, installations) and its key file
# live on a volume, never in the container's own layer: they survive a new image. With DATABASE_URL the
# volume stays empty.
RUN mkdir -p /data && chown node:node /data
VOLUME /data
USER node
EXPOSE 3000
# /healthz answers 200 with "ok" or "degraded"; in Socket Mode it listens on 127.0.0.1, which is where
# this check runs. Set HTTP_HOST=0.0.0.0 to probe it from outside the container.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
CMD ["node", "dist/main.js"]
