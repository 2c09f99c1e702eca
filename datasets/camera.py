"""The webcam of a rendered scene: pinhole camera + OpenCV lens distortion, above the table.

The table frame is the one of :mod:`nertz.datasets.geometry` (mm, ``x`` right, ``y`` down as
seen from above, ``z`` into the table). The camera follows OpenCV's model
(``cv2.projectPoints``): ``x_cam = R @ X + t``, then the radial/tangential distortion
``(k1, k2, p1, p2, k3)`` and the intrinsic matrix ``K``.

A point lifted ``h`` mm above the cloth is seen exactly where the camera ray through it meets
the cloth; :meth:`Camera.lift` gives that *flat-equivalent* point
``C_xy + (p - C_xy) * H / (H - h)`` (``C`` the camera centre, ``H`` its height). The renderer
draws lifted things (a pile's top card, a card in the air, hands) at their flat-equivalent
places on a top-down canvas and warps the canvas to the image once, so every label computed
with the same formula is exact.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

__all__ = ["Camera", "make_camera", "RESOLUTIONS"]

RESOLUTIONS = ((1280, 720), (1920, 1080))
"""Frame sizes of common webcams, (width, height) pixels."""


@dataclass
class Camera:
    """A calibrated camera looking at the table.

    Attributes:
        width, height: image size, pixels.
        K: ``(3, 3)`` intrinsic matrix (pixels).
        dist: ``(5,)`` OpenCV distortion ``(k1, k2, p1, p2, k3)``.
        R: ``(3, 3)`` rotation table frame -> camera frame.
        t: ``(3,)`` translation (mm), ``x_cam = R @ X + t``.
        tilt_deg: angle between the optical axis and the table normal, degrees.
        fov_deg: diagonal field of view of the undistorted pinhole, degrees.
    """

    width: int
    height: int
    K: np.ndarray
    dist: np.ndarray
    R: np.ndarray
    t: np.ndarray
    tilt_deg: float
    fov_deg: float

    @property
    def centre(self) -> np.ndarray:
        """``(3,)`` camera centre in table mm (its ``z`` is negative: above the cloth)."""
        return -self.R.T @ self.t

    @property
    def height_mm(self) -> float:
        """Height of the camera centre above the cloth, mm."""
        return float(-self.centre[2])

    def lift(self, pts: np.ndarray, h: np.ndarray | float) -> np.ndarray:
        """Flat-equivalent table points of points lifted ``h`` mm above the cloth.

        Args:
            pts: ``(..., 2)`` table mm.
            h: height(s) in mm, broadcastable to ``pts[..., 0]``; must stay below the camera.

        Returns:
            ``(..., 2)`` table mm: where the camera ray through the lifted point meets the cloth.
        """
        c = self._centre_xy_h()
        f = c[2] / (c[2] - np.asarray(h, dtype=np.float64))
        pts = np.asarray(pts, dtype=np.float64)
        return c[:2] + (pts - c[:2]) * f[..., None]

    def _centre_xy_h(self) -> np.ndarray:
        cached = self.__dict__.get("_cxyh")
        if cached is None:
            c = self.centre
            cached = self.__dict__["_cxyh"] = np.array([c[0], c[1], -c[2]])
        return cached

    def project(self, pts: np.ndarray) -> np.ndarray:
        """Image pixels of table points on the cloth.

        Args:
            pts: ``(..., 2)`` table mm (z = 0).

        Returns:
            ``(..., 2)`` float64 pixels (distortion applied), same leading shape.
        """
        pts = np.asarray(pts, dtype=np.float64)
        shape = pts.shape[:-1]
        p = pts.reshape(-1, 2)
        xc = p @ self.R[:, :2].T + self.t  # camera frame (z = 0 on the cloth)
        z = np.maximum(xc[:, 2], 1e-9)
        xn = xc[:, :2] / z[:, None]
        uv = self._distort(xn)
        return uv.reshape(shape + (2,))

    def _radius_limit(self) -> float:
        """Normalised radius up to which the distortion polynomial is used as is: 1.25 times
        the radius of the frame's corners, and below the radius where the distorted radius
        stops growing (barrel polynomials fold back far outside the field of view)."""
        lim = self.__dict__.get("_rlim")
        if lim is None:
            corners = np.array([[0, 0], [self.width - 1, 0], [0, self.height - 1],
                                [self.width - 1, self.height - 1]], np.float64).reshape(-1, 1, 2)
            crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-9)
            rc = np.linalg.norm(cv2.undistortPoints(corners, self.K, self.dist, None, None, None,
                                                    crit).reshape(-1, 2), axis=1).max()
            k1, k2, _, _, k3 = self.dist[:5]
            r = np.linspace(1e-3, 4.0 * rc + 1.0, 4000)
            dg = 1 + 3 * k1 * r ** 2 + 5 * k2 * r ** 4 + 7 * k3 * r ** 6  # d(r * radial)/dr
            bad = np.nonzero(dg < 0.2)[0]
            mono = r[bad[0]] if len(bad) else r[-1]
            lim = self.__dict__["_rlim"] = float(min(1.25 * rc, 0.95 * mono))
        return lim

    def _distort(self, xn: np.ndarray) -> np.ndarray:
        """OpenCV's distortion model (as ``cv2.projectPoints``) on normalised coordinates
        ``(N, 2)``, continued linearly in the radius beyond :meth:`_radius_limit` so that points
        far outside the view never fold back into the frame. Returns pixels ``(N, 2)``."""
        k1, k2, p1, p2, k3 = self.dist[:5]
        rl = self._radius_limit()
        r = np.linalg.norm(xn, axis=1)
        scale = np.minimum(1.0, rl / np.maximum(r, 1e-12))
        x, y = xn[:, 0] * scale, xn[:, 1] * scale  # clamped to the limit circle
        r2 = x * x + y * y
        radial = 1 + k1 * r2 + k2 * r2 * r2 + k3 * r2 * r2 * r2
        xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
        yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
        out = r > rl
        if np.any(out):
            g1 = 1 + 3 * k1 * rl ** 2 + 5 * k2 * rl ** 4 + 7 * k3 * rl ** 6  # slope at the limit
            extra = (r[out] - rl) * max(g1, 0.2) / rl
            xd[out] += x[out] * extra
            yd[out] += y[out] * extra
        K = self.K
        return np.column_stack([K[0, 0] * xd + K[0, 1] * yd + K[0, 2], K[1, 1] * yd + K[1, 2]])

    def pixels_to_table(self, uv: np.ndarray) -> np.ndarray:
        """Table points (mm, z = 0) seen at image pixels (inverse of :meth:`project`).

        Args:
            uv: ``(N, 2)`` pixels.

        Returns:
            ``(N, 2)`` table mm; NaN where the ray does not meet the cloth.
        """
        uv = np.asarray(uv, dtype=np.float64).reshape(-1, 1, 2)
        crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-9)
        xn = cv2.undistortPoints(uv, self.K, self.dist, None, None, None, crit).reshape(-1, 2)
        d = np.column_stack([xn, np.ones(len(xn))]) @ self.R  # rows: R^T @ d_cam
        c = self.centre
        with np.errstate(divide="ignore", invalid="ignore"):
            lam = -c[2] / d[:, 2]
        out = c[:2] + lam[:, None] * d[:, :2]
        out[~(lam > 0)] = np.nan
        return out


def _look_at(centre: np.ndarray, target: np.ndarray, roll_deg: float) -> np.ndarray:
    f = target - centre
    f = f / np.linalg.norm(f)
    r = np.deg2rad(roll_deg)
    down = np.array([-np.sin(r), np.cos(r), 0.0])
    y = down - (down @ f) * f
    y /= np.linalg.norm(y)
    x = np.cross(y, f)
    return np.stack([x, y, f])


def make_camera(rng: np.random.Generator, width: int, height: int, region: np.ndarray,
                tilt_deg: float | None = None, fov_deg: float | None = None,
                fill: float | None = None, distortion: bool = True) -> Camera:
    """Place a webcam so that the play region fills the frame.

    Draws: tilt 0-35 degrees off vertical (toward a random side), diagonal field of view 60-78
    degrees (common webcams), roll within 4 degrees of the table's axes, barrel distortion
    ``k1`` in [-0.28, 0.02], ``k2`` in [-0.05, 0.12] (redrawn until the lens maps the whole
    frame without folding back) with small tangential terms, and how much
    of the frame the region fills (0.86-1.04: it may be cut off a little). The camera aims at
    the region and its distance is solved so the region fits.

    Args:
        rng: the scene's generator.
        width, height: image size, pixels.
        region: ``(N, 2)`` table mm that should be in view.
        tilt_deg, fov_deg, fill: fix a value instead of drawing it.
        distortion: False for an ideal pinhole.

    Raises:
        ValueError: a tilt outside [0, 60] degrees or a field of view outside [20, 120].
    """
    tilt = float(rng.uniform(0.0, 35.0) * (rng.random() < 0.8)) if tilt_deg is None else tilt_deg
    fov = float(rng.uniform(60.0, 78.0)) if fov_deg is None else fov_deg
    if not 0.0 <= tilt <= 60.0:
        raise ValueError(f"camera tilt must be 0..60 degrees, got {tilt}")
    if not 20.0 <= fov <= 120.0:
        raise ValueError(f"field of view must be 20..120 degrees, got {fov}")
    fill = float(rng.uniform(0.86, 1.04)) if fill is None else fill
    azimuth = float(rng.uniform(0, 360))
    roll = float(rng.choice([0.0, 0.0, 0.0, 180.0]) + rng.uniform(-4, 4))
    diag = np.hypot(width, height)
    f = diag / 2 / np.tan(np.deg2rad(fov) / 2)
    K = np.array([[f, 0, width / 2 + rng.uniform(-0.01, 0.01) * width],
                  [0, f, height / 2 + rng.uniform(-0.01, 0.01) * height], [0, 0, 1]])
    dist = np.zeros(5)
    if distortion:
        # the lens must map the whole frame: the distorted radius r * (1 + k1 r^2 + k2 r^4)
        # must still be growing, and reach past the frame's corner, before it folds back
        rd_corner = np.hypot(width / 2, height / 2) / f * 1.08
        r = np.linspace(1e-3, 3.0, 3000)
        for _ in range(100):
            k1, k2 = rng.uniform(-0.28, 0.02), rng.uniform(-0.05, 0.12)
            g = r * (1 + k1 * r ** 2 + k2 * r ** 4)
            dg = np.diff(g)
            stop = np.nonzero(dg <= 0)[0]
            gmax = g[stop[0]] if len(stop) else g[-1]
            if gmax > rd_corner:
                dist = np.array([k1, k2, rng.uniform(-1e-3, 1e-3), rng.uniform(-1e-3, 1e-3), 0.0])
                break
    region = np.asarray(region, dtype=np.float64).reshape(-1, 2)
    target = np.array([*region.mean(axis=0), 0.0])
    a, tl = np.deg2rad(azimuth), np.deg2rad(tilt)
    direction = np.array([np.cos(a) * np.sin(tl), np.sin(a) * np.sin(tl), -np.cos(tl)])
    dist_mm = 1000.0
    cam = None
    for _ in range(12):
        centre = target + direction * dist_mm
        R = _look_at(centre, target, roll)
        cam = Camera(width, height, K, dist, R, -R @ centre, tilt, fov)
        # fit on the pinhole (no distortion) so the solve is stable
        rvec, _ = cv2.Rodrigues(R)
        p3 = np.column_stack([region, np.zeros(len(region))])
        uv, _ = cv2.projectPoints(p3, rvec, cam.t, K, np.zeros(5))
        uv = uv.reshape(-1, 2)
        # recentre: move the aim so the region's bbox is centred
        lo, hi = uv.min(axis=0), uv.max(axis=0)
        mid = (lo + hi) / 2
        need = max((hi[0] - lo[0]) / (width * fill), (hi[1] - lo[1]) / (height * fill))
        dist_mm *= need
        shift = cam.pixels_to_table(np.array([[mid[0], mid[1]], [K[0, 2], K[1, 2]]]))
        if np.all(np.isfinite(shift)):
            target[:2] += shift[0] - shift[1]
        if abs(need - 1) < 1e-3 and np.hypot(*(mid - K[:2, 2])) < 1.0:
            break
    assert cam is not None
    return cam
