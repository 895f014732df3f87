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
COPY tsconfig.json ./
COPY src ./src
COPY scripts ./scripts
RUN node --import tsx scripts/build-workflows.ts
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080
EXPOSE 8080
CMD ["node", "--import", "tsx", "src/main.ts"]
