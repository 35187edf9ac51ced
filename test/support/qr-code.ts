import jsQR from 'jsqr';
import sharp from 'sharp';

/** The text of the QR code in a PNG screenshot; `undefined` when none can be read. */
export async function readQrCode(png: Buffer): Promise<string | undefined> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), info.width, info.height)?.data;
}
