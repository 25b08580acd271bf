"""Stock photo provider clients: `stock_a` (Pexels) and `stock_b` (Unsplash), one module each."""

from core.stock.providers.base import (
    Attribution,
    Rendition,
    StockPhoto,
    StockProvider,
    StockProviderError,
)
from core.stock.providers.pexels import PexelsProvider
from core.stock.providers.unsplash import UnsplashProvider

__all__ = [
    "Attribution",
    "PexelsProvider",
    "Rendition",
    "StockPhoto",
    "StockProvider",
    "StockProviderError",
    "UnsplashProvider",
]
