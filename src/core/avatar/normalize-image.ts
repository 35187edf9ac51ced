import { loadOptional } from '../../internal/optional';
import { sniffImageType } from './image-type';

/**
 * Checks downloaded bytes are a real image within the pixel cap and re-encodes them, so only
 * pixels are stored: bytes appended to an image (a `<script>`, a polyglot), comments and metadata
 * (EXIF, GPS) are dropped. JPEG and WebP stay in their format; PNG, GIF (first frame) and
 * anything resized become PNG. Resizes once to fit a `limit` x `limit` box (aspect kept) when
 * larger. Throws for anything that is not an image.
 * @param limit - 0 keeps the size.
 */
export async function normalizeImage(data: Buffer, limit: number, maxPixels: number): Promise<Buffer> {
  const sharp = loadOptional<typeof import('sharp')>('sharp', 'avatar pictures (without it, avatars are identicons)');
  const type = sniffImageType(data);
  if (type === undefined) throw new Error('not an image');
  const meta = await sharp(data, { limitInputPixels: maxPixels }).metadata();
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  if (width === 0 || height === 0 || width * height > maxPixels) throw new Error('image dimensions are out of bounds');
  // rotate() applies the EXIF orientation before the metadata is dropped.
  const image = sharp(data, { limitInputPixels: maxPixels }).rotate();
  if (limit > 0 && (width > limit || height > limit)) return image.resize({ width: limit, height: limit, fit: 'inside' }).png().toBuffer();
  if (type === 'image/jpeg') return image.jpeg({ quality: 90 }).toBuffer();
  if (type === 'image/webp') return image.webp({ quality: 90 }).toBuffer();
  return image.png().toBuffer();
}
