// clawboo's own classify + policy over a capture, for a side-by-side with
// `clawtap intents` (bench/sidebyside.sh, bench/README.md "Side by side").
// Nothing of clawboo is in this repository: point the script at your own
// checkout of github.com/clawboo/clawboo, whose packages/events and
// packages/protocol sources (TypeScript) Node 22.18+ or 24 runs as they
// are (type stripping).
//
//   node bench/clawboo-intents.mjs CLAWBOO_CHECKOUT CAPTURE [--no-write]
//
// CAPTURE is a clawtap capture (.jsonl, or zstd-compressed). Every event
// frame is parsed (JSON.parse), classified (classifyEvent) and its intents
// derived (derivePolicy), as clawboo's useGatewayEvents does; each
// record's intents are written to stdout as one JSON line unless
// --no-write. A summary goes to stderr.
import { createReadStream, existsSync } from 'node:fs'
import { registerHooks } from 'node:module'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { pathToFileURL } from 'node:url'
import { createZstdDecompress } from 'node:zlib'

const [checkout, capture, ...flags] = process.argv.slice(2)
if (!checkout || !capture) {
  console.error('usage: node bench/clawboo-intents.mjs CLAWBOO_CHECKOUT CAPTURE [--no-write]')
  process.exit(2)
}
const root = resolve(checkout)
const events = join(root, 'packages/events/src')
const protocol = join(root, 'packages/protocol/src/index.ts')
if (!existsSync(join(events, 'index.ts')) || !existsSync(protocol)) {
  console.error(`${root}: no packages/events/src/index.ts or packages/protocol/src/index.ts (a clawboo checkout?)`)
  process.exit(2)
}
const write = !flags.includes('--no-write')

// The monorepo's imports: @clawboo/protocol is its package's source, and
// relative imports name no extension (its bundler adds .ts).
// Its sources are ES modules in TypeScript, in packages without "type".
const typescript = (r) => (r.url.endsWith('.ts') ? { ...r, format: 'module-typescript' } : r)
registerHooks({
  resolve(specifier, context, next) {
    if (specifier === '@clawboo/protocol') return typescript(next(pathToFileURL(protocol).href, context))
    if ((specifier.startsWith('./') || specifier.startsWith('../')) && context.parentURL?.endsWith('.ts')) {
      for (const ext of ['.ts', '/index.ts']) {
        const url = new URL(specifier + ext, context.parentURL)
        if (existsSync(url)) return typescript(next(url.href, context))
      }
    }
    return typescript(next(specifier, context))
  },
})

const { classifyEvent } = await import(pathToFileURL(join(events, 'bridge.ts')).href)
const { derivePolicy } = await import(pathToFileURL(join(events, 'policy/index.ts')).href)

async function* lines(path) {
  const head = await new Promise((ok, fail) => {
    const s = createReadStream(path, { start: 0, end: 3 })
    const parts = []
    s.on('data', (d) => parts.push(d)).on('end', () => ok(Buffer.concat(parts))).on('error', fail)
  })
  let input = createReadStream(path, { highWaterMark: 1 << 20 })
  if (head.length === 4 && head.readUInt32LE(0) === 0xfd2fb528) input = input.pipe(createZstdDecompress())
  yield* createInterface({ input, crlfDelay: Infinity })
}

const start = process.hrtime.bigint()
let records = 0
let frames = 0
let intents = 0
let out = []
let outLen = 0
const flush = () => {
  if (out.length) process.stdout.write(out.join(''))
  out = []
  outLen = 0
}
for await (const line of lines(capture)) {
  if (!line) continue
  records++
  let rec
  try {
    rec = JSON.parse(line)
  } catch {
    continue
  }
  const frame = rec?.frame
  if (!frame || frame.type !== 'event') continue
  frames++
  const got = derivePolicy(classifyEvent(frame))
  intents += got.length
  if (write) {
    const s = JSON.stringify({ i: records - 1, intents: got }) + '\n'
    out.push(s)
    outLen += s.length
    if (outLen > 1 << 20) flush()
  }
}
flush()
const ms = Number(process.hrtime.bigint() - start) / 1e6
console.error(`clawboo classify+policy (node ${process.version}): ${records} records, ${frames} event frames, ${intents} intents, ${ms.toFixed(0)} ms`)
