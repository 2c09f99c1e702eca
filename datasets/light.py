"""Light and sensor of a rendered scene, applied in image space.

:class:`Lighting` is fixed per scene: a per-pixel, per-channel gain (colour temperature after
an imperfect white balance, a brightness gradient, vignetting, a broad soft shadow) and an
additive glare term (soft bright spots where a lamp reflects). :class:`Sensor` adds what a
webcam adds per frame: defocus blur, noise (a bank of Gaussian noise drawn once, cropped at a
random offset per frame, so frames stay cheap and reproducible) and JPEG compression.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

__all__ = ["Lighting", "Sensor", "make_lighting", "make_sensor", "kelvin_to_bgr", "apply_light_and_sensor"]


def kelvin_to_bgr(kelvin: float) -> np.ndarray:
    """Relative BGR of a black body at ``kelvin`` (1000-40000 K), max channel 1.

    Tanner Helland's fit to Mitchell Charity's blackbody table
    (tannerhelland.com, "How to Convert Temperature (K) to RGB").
    """
    t = float(np.clip(kelvin, 1000, 40000)) / 100.0
    if t <= 66:
        r = 255.0
        g = 99.4708025861 * np.log(t) - 161.1195681661
        b = 0.0 if t <= 19 else 138.5177312231 * np.log(t - 10) - 305.0447927307
    else:
        r = 329.698727446 * (t - 60) ** -0.1332047592
        g = 288.1221695283 * (t - 60) ** -0.0755148492
        b = 255.0
    rgb = np.clip([r, g, b], 1, 255)
    return (rgb[::-1] / rgb.max()).astype(np.float32)


@dataclass
class Lighting:
    """Scene light in image space.

    Attributes:
        gain: ``(H, W, 3) float32`` multiplicative gain per pixel and channel.
        glare: ``(H, W, 3) float32`` additive term (0..255 scale), or None.
        kelvin: colour temperature of the light.
        shadow_dir: ``(2,)`` unit vector (table frame) in which shadows fall, for hands and piles.
    """

    gain: np.ndarray
    glare: np.ndarray | None
    kelvin: float
    shadow_dir: np.ndarray


def make_lighting(rng: np.random.Generator, width: int, height: int,
                  enabled: bool = True) -> Lighting:
    """Draw a room light: 2700-7500 K with 40-85 % of the cast removed by white balance,
    overall exposure 0.8-1.25, a linear gradient of up to 45 %, vignetting (cos^4-like falloff
    of 5-35 % at the corners), up to 2 glare spots and, half the time, a broad soft shadow.

    With ``enabled=False`` the gain is 1 everywhere and there is no glare (for tests).
    """
    sd = rng.standard_normal(2)
    sd /= np.linalg.norm(sd) + 1e-9
    if not enabled:
        return Lighting(np.ones((height, width, 3), np.float32), None, 6500.0, sd)
    kelvin = float(rng.uniform(2700, 7500))
    cast = kelvin_to_bgr(kelvin) / kelvin_to_bgr(6500)
    cast = cast / cast.mean()
    wb = rng.uniform(0.4, 0.85)
    colour = (1 - wb) * cast + wb
    colour = colour * rng.uniform(0.97, 1.03, 3)  # residual tint
    exposure = rng.uniform(0.8, 1.25)
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    xn = (x - width / 2) / (width / 2)
    yn = (y - height / 2) / (width / 2)
    a = rng.uniform(0, 2 * np.pi)
    grad = 1 + rng.uniform(0, 0.45) * 0.5 * (np.cos(a) * xn + np.sin(a) * yn)
    r2 = xn * xn + yn * yn
    vig_strength = rng.uniform(0.05, 0.35)
    vig = 1 - vig_strength * (r2 / r2.max()) ** 1.3
    g = (exposure * grad * vig).astype(np.float32)
    if rng.random() < 0.5:  # a broad soft shadow (a person, a lamp shade)
        mask = np.zeros((height // 8, width // 8), np.float32)
        cxy = rng.uniform(0, 1, 2) * np.array([width // 8, height // 8])
        axes = (int(rng.uniform(0.2, 0.6) * width / 8), int(rng.uniform(0.2, 0.6) * height / 8))
        cv2.ellipse(mask, (int(cxy[0]), int(cxy[1])), axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
        mask = cv2.GaussianBlur(mask, (0, 0), width / 8 * rng.uniform(0.04, 0.12))
        mask = cv2.resize(mask, (width, height), interpolation=cv2.INTER_LINEAR)
        g *= 1 - rng.uniform(0.15, 0.4) * mask
    gain = g[..., None] * colour[None, None, :].astype(np.float32)
    glare = None
    n_glare = int(rng.choice([0, 0, 1, 1, 2]))
    if n_glare:
        gl = np.zeros((height, width), np.float32)
        for _ in range(n_glare):
            c = rng.uniform([0.1, 0.1], [0.9, 0.9]) * np.array([width, height])
            sig = rng.uniform(0.03, 0.12) * width
            d2 = ((x - c[0]) ** 2 + ((y - c[1]) * rng.uniform(0.6, 1.4)) ** 2) / (2 * sig * sig)
            gl += rng.uniform(25, 90) * np.exp(-d2)
        glare = (gl[..., None] * np.float32(1.0) * (0.5 + 0.5 * colour)[None, None, :]).astype(np.float32)
    return Lighting(gain.astype(np.float32), glare, kelvin, sd)


@dataclass
class Sensor:
    """Per-frame camera degradations.

    Attributes:
        blur_sigma: Gaussian defocus sigma, pixels (0 = none).
        noise_bank: ``(Hn, Wn, 3) float32`` zero-mean noise (DN), larger than the frame; None = none.
        jpeg_quality: 1..100, or 0 for no compression.
        exposure_s: exposure time, seconds (sets motion-blur length).
    """

    blur_sigma: float
    noise_bank: np.ndarray | None
    jpeg_quality: int
    exposure_s: float


def make_sensor(rng: np.random.Generator, width: int, height: int, enabled: bool = True) -> Sensor:
    """Draw a webcam sensor: defocus sigma 0.2-1.1 px, noise sigma 1-5 DN (slightly chroma
    correlated), JPEG quality 55-95, exposure 1/120-1/30 s. ``enabled=False``: none of them
    (exposure stays, so motion blur still happens)."""
    exposure = float(1.0 / rng.uniform(30, 120))
    if not enabled:
        return Sensor(0.0, None, 0, exposure)
    blur = float(rng.uniform(0.2, 1.1))
    sigma = float(rng.uniform(1.0, 5.0))
    pad = 64
    lum = rng.standard_normal((height + pad, width + pad, 1)).astype(np.float32)
    chroma = rng.standard_normal((height + pad, width + pad, 3)).astype(np.float32)
    bank = sigma * (0.6 * lum + 0.8 * chroma)
    bank = cv2.GaussianBlur(bank, (0, 0), 0.5)
    quality = int(rng.integers(55, 96))
    return Sensor(blur, bank.astype(np.float32), quality, exposure)


def apply_light_and_sensor(frame: np.ndarray, light: Lighting, sensor: Sensor,
                           rng: np.random.Generator) -> np.ndarray:
    """Light, blur, noise and compress a rendered frame.

    Args:
        frame: ``(H, W, 3) uint8`` BGR as the ideal camera would see it under white light.
        light, sensor: the scene's.
        rng: per-frame generator (noise offset).

    Returns:
        ``(H, W, 3) uint8`` BGR.
    """
    h, w = frame.shape[:2]
    if sensor.blur_sigma > 0.05:
        frame = cv2.GaussianBlur(frame, (0, 0), sensor.blur_sigma)
    f = frame.astype(np.float32)
    cv2.multiply(f, light.gain, dst=f)
    if light.glare is not None:
        cv2.add(f, light.glare, dst=f)
    if sensor.noise_bank is not None:
        bh, bw = sensor.noise_bank.shape[:2]
        oy = int(rng.integers(0, bh - h + 1))
        ox = int(rng.integers(0, bw - w + 1))
        cv2.add(f, sensor.noise_bank[oy:oy + h, ox:ox + w], dst=f)
    out = np.empty((h, w, 3), np.uint8)
    np.clip(f, 0, 255, out=f)
    out[:] = f
    if sensor.jpeg_quality:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, sensor.jpeg_quality])
        if ok:
            out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out
