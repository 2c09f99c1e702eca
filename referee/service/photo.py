"""Photos posted to the service (the end-of-round audit photo): checked before they are decoded.

A posted body's format and declared size are read from its header (Pillow, which decodes
nothing until asked) and it is refused when it is larger than
:data:`MAX_PHOTO_PIXELS` *before* OpenCV decodes it, so a small file declaring a huge image (a
decompression bomb) costs nothing. Then it is decoded with :func:`cv2.imdecode`.
"""

from __future__ import annotations

import io
import warnings

import cv2
import numpy as np

from nertz.referee.errors import NertzError

__all__ = ["PhotoError", "decode_photo", "image_size", "MAX_PHOTO_BYTES", "MAX_PHOTO_PIXELS", "MAX_PHOTO_SIDE",
           "PHOTO_TYPES"]

MAX_PHOTO_BYTES = 16 * 1024 * 1024
"""The largest photo body accepted, bytes (a 12 MP phone JPEG is 3-6 MB)."""
MAX_PHOTO_PIXELS = 40_000_000
"""The largest photo accepted, pixels (width x height)."""
MAX_PHOTO_SIDE = 10_000
"""The longest side accepted, pixels."""
MIN_PHOTO_SIZE = (64, 36)
"""The smallest photo accepted, ``(width, height)`` pixels (the audit's own minimum)."""
PHOTO_TYPES = ("image/jpeg", "image/png")
"""The content types a photo may be posted as."""


class PhotoError(NertzError):
    """A posted body that is not a usable JPEG or PNG photo (HTTP 422)."""


def image_size(data: bytes) -> tuple[str, int, int]:
    """The format and declared size of a JPEG or PNG file, read from its header only (Pillow's
    ``Image.open`` is lazy: nothing is decoded).

    Returns:
        ``("jpeg" | "png", width, height)``, pixels.

    Raises:
        PhotoError: not a JPEG or PNG, or a header cut short or damaged.
    """
    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():  # the size is judged by the caller, against our own limits
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=("JPEG", "PNG")) as im:
                return str(im.format).lower(), int(im.size[0]), int(im.size[1])
    except Image.DecompressionBombError:
        raise PhotoError(f"the photo is too large (over {MAX_PHOTO_PIXELS // 1_000_000} megapixels)") from None
    except UnidentifiedImageError:
        raise PhotoError("the body is not a JPEG or PNG image (or its header is damaged)") from None
    except (OSError, SyntaxError, ValueError) as exc:  # Pillow's errors for a truncated or broken header
        raise PhotoError(f"the image's header is damaged or cut short ({exc})") from None


def decode_photo(data: bytes) -> tuple[np.ndarray, bytes]:
    """Decode a posted JPEG or PNG photo.

    Args:
        data: the file's bytes.

    Returns:
        ``(image, jpeg)``: the image, ``(H, W, 3) uint8`` BGR, and JPEG bytes to keep in the
        store (the body itself for a JPEG; a PNG re-encoded at quality 90).

    Raises:
        PhotoError: an empty body, not a JPEG or PNG, a declared size smaller than
            :data:`MIN_PHOTO_SIZE` or larger than :data:`MAX_PHOTO_PIXELS` /
            :data:`MAX_PHOTO_SIDE`, or data that does not decode.
    """
    if not data:
        raise PhotoError("the body is empty: send the photo's bytes (JPEG or PNG)")
    kind, w, h = image_size(data)
    if w < MIN_PHOTO_SIZE[0] or h < MIN_PHOTO_SIZE[1]:
        raise PhotoError(f"the photo is too small to count ({w}x{h} pixels; at least "
                         f"{MIN_PHOTO_SIZE[0]}x{MIN_PHOTO_SIZE[1]})")
    if w > MAX_PHOTO_SIDE or h > MAX_PHOTO_SIDE or w * h > MAX_PHOTO_PIXELS:
        raise PhotoError(f"the photo is too large ({w}x{h} pixels; at most {MAX_PHOTO_SIDE} a side and "
                         f"{MAX_PHOTO_PIXELS // 1_000_000} megapixels)")
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if img is None or img.ndim != 3 or img.shape[2] != 3:
        raise PhotoError(f"the {kind.upper()} could not be decoded (damaged or cut short)")
    if kind == "jpeg":
        return img, bytes(data)
    ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])
    if not ok:  # pragma: no cover - OpenCV encodes any (H, W, 3) uint8 image
        raise PhotoError("the photo could not be kept as a JPEG")
    return img, enc.tobytes()
