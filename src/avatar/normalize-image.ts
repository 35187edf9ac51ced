import sharp from 'sharp';
import { sniffImageType } from './image-type';

/**
 * Checks downloaded bytes are a real image within the pixel cap, and resizes them once to fit a
 * `limit` x `limit` box (aspect kept, PNG) when larger. Throws for anything else.
 * @param limit - 0 keeps the size.
 */
export async function normalizeImage(data: Buffer, limit: number, maxPixels: number): Promise<Buffer> {
  if (sniffImageType(data) === undefined) throw new Error('not an image');
  const meta = await sharp(data, { limitInputPixels: maxPixels }).metadata();
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  if (width === 0 || height === 0 || width * height > maxPixels) throw new Error('image dimensions are out of bounds');
  if (limit === 0 || (width <= limit && height <= limit)) return data;
  return sharp(data, { limitInputPixels: maxPixels }).resize({ width: limit, height: limit, fit: 'inside' }).png().toBuffer();
}
