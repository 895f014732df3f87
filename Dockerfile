# One image for the API, the worker and the migration job (docker-compose.yml picks the command).
FROM node:24-bookworm-slim
WORKDIR /app
# TeX Live for LaTeX compile jobs (the worker runs latexmk/pdflatex; see docs/decisions.md, Projects and compile jobs).
RUN apt-get update && apt-get install -y --no-install-recommends latexmk texlive-latex-base texlive-latex-recommended texlive-fonts-recommended \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# The lockfile names the client workspace (packages/client); npm ci wants its manifest, not its sources.
COPY packages/client/package.json ./packages/client/
RUN npm ci --omit=dev --ignore-scripts && npm install --no-save tsx
# The embedded embedding model (all-MiniLM-L6-v2), fetched at build time with its hashes checked, as scripts/bootstrap.sh
# does for a checkout; the running container fetches nothing. Copied alone so a source change reuses this layer.
COPY src/search/local-model-files.ts ./src/search/
COPY scripts/fetch-model.ts ./scripts/
RUN node --import tsx scripts/fetch-model.ts
COPY tsconfig.json ./
COPY src ./src
COPY scripts ./scripts
RUN node --import tsx scripts/build-workflows.ts
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080
EXPOSE 8080
CMD ["node", "--import", "tsx", "src/main.ts"]
