// Regenerates resources/icon.png (512x512): a dark rounded square with stacked lines, the
// layers of an agent's context, the newest one in the accent colour.
// Built-ins only: shapes are drawn as signed distance fields (anti-aliased), PNG by zlib.
//   node scripts/make-icon.js [out.png]
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const SIZE = 512;

/** Signed distance from (x, y) to a rounded rectangle; negative inside. */
function roundedRect(x, y, left, top, width, height, radius) {
  const hx = width / 2;
  const hy = height / 2;
  const qx = Math.abs(x - (left + hx)) - (hx - radius);
  const qy = Math.abs(y - (top + hy)) - (hy - radius);
  const outside = Math.hypot(Math.max(qx, 0), Math.max(qy, 0));
  return outside + Math.min(Math.max(qx, qy), 0) - radius;
}

const coverage = (distance) => Math.min(1, Math.max(0, 0.5 - distance));
const mix = (a, b, t) => a.map((v, i) => v + (b[i] - v) * t);

const TILE = { left: 48, top: 48, size: 416, radius: 92 };
const TOP_COLOR = [46, 52, 76];
const BOTTOM_COLOR = [22, 25, 38];
const LINE = [206, 212, 235];
const ACCENT = [94, 234, 212];

// Stacked context layers: older ones dimmer, the last (newest) one in the accent colour.
const LINE_HEIGHT = 40;
const LINE_GAP = 30;
const LINES = [
  { width: 272, color: LINE, alpha: 0.45 },
  { width: 216, color: LINE, alpha: 0.7 },
  { width: 272, color: LINE, alpha: 1 },
  { width: 152, color: ACCENT, alpha: 1 },
];
const LINES_LEFT = 120;
const LINES_TOP = SIZE / 2 - (LINES.length * LINE_HEIGHT + (LINES.length - 1) * LINE_GAP) / 2;

function pixel(x, y) {
  const tile = coverage(roundedRect(x, y, TILE.left, TILE.top, TILE.size, TILE.size, TILE.radius));
  if (tile === 0) return [0, 0, 0, 0];
  let rgb = mix(TOP_COLOR, BOTTOM_COLOR, (y - TILE.top) / TILE.size);
  LINES.forEach((line, i) => {
    const top = LINES_TOP + i * (LINE_HEIGHT + LINE_GAP);
    const d = roundedRect(x, y, LINES_LEFT, top, line.width, LINE_HEIGHT, LINE_HEIGHT / 2);
    rgb = mix(rgb, line.color, coverage(d) * line.alpha);
  });
  return [...rgb, tile * 255];
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf) {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

function png() {
  const raw = Buffer.alloc(SIZE * (SIZE * 4 + 1));
  for (let y = 0; y < SIZE; y++) {
    const row = y * (SIZE * 4 + 1);
    raw[row] = 0; // filter: none
    for (let x = 0; x < SIZE; x++) {
      const rgba = pixel(x + 0.5, y + 0.5);
      for (let i = 0; i < 4; i++) raw[row + 1 + x * 4 + i] = Math.round(rgba[i]);
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(SIZE, 0);
  header.writeUInt32BE(SIZE, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // colour type: RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const out = process.argv[2] ?? fileURLToPath(new URL('../resources/icon.png', import.meta.url));
writeFileSync(out, png());
console.log(`wrote ${out}`);
