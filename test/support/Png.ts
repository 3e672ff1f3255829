/**
 * A PNG decoded to its pixels, for checking a screenshot by its regions: the
 * 8-bit RGB and RGBA images without interlacing that Chromium writes.
 */
import * as Zlib from "node:zlib"

export interface Image {
  readonly width: number
  readonly height: number
  /** The pixel at (x, y) as [red, green, blue]. */
  readonly rgb: (x: number, y: number) => readonly [number, number, number]
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

const paeth = (a: number, b: number, c: number) => {
  const p = a + b - c
  const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)]
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c
}

export const decode = (png: Buffer): Image => {
  if (!png.subarray(0, 8).equals(SIGNATURE)) throw new Error("not a PNG")
  let width = 0
  let height = 0
  let channels = 0
  const data: Array<Buffer> = []
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at)
    const type = png.toString("latin1", at + 4, at + 8)
    const body = png.subarray(at + 8, at + 8 + length)
    if (type === "IHDR") {
      width = body.readUInt32BE(0)
      height = body.readUInt32BE(4)
      const [depth, color, , , interlace] = [body[8], body[9], body[10], body[11], body[12]]
      if (depth !== 8 || (color !== 2 && color !== 6) || interlace !== 0) {
        throw new Error(`a PNG of depth ${depth}, colour type ${color}, interlace ${interlace}: not read here`)
      }
      channels = color === 6 ? 4 : 3
    } else if (type === "IDAT") data.push(body)
    at += 12 + length
  }
  const raw = Zlib.inflateSync(Buffer.concat(data))
  const stride = width * channels
  const pixels = Buffer.alloc(stride * height)
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1))
    for (let i = 0; i < stride; i++) {
      const left = i >= channels ? (pixels[y * stride + i - channels] ?? 0) : 0
      const up = y > 0 ? (pixels[(y - 1) * stride + i] ?? 0) : 0
      const corner = y > 0 && i >= channels ? (pixels[(y - 1) * stride + i - channels] ?? 0) : 0
      const predicted = [0, left, up, (left + up) >> 1, paeth(left, up, corner)][filter ?? 0] ?? 0
      pixels[y * stride + i] = ((line[i] ?? 0) + predicted) & 0xff
    }
  }
  return {
    width,
    height,
    rgb: (x, y) => {
      const i = y * stride + x * channels
      return [pixels[i] ?? 0, pixels[i + 1] ?? 0, pixels[i + 2] ?? 0]
    },
  }
}
