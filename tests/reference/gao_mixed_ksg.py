"""Gao et al.'s published mixed KSG (github.com/wgao9/mixed_KSG, mixed.py), unchanged but for
Python 3: the reference of discrete_reference.py and mixed_labels_reference.py."""

import numpy as np
import scipy.spatial as ss
from scipy.special import digamma


def mixed_ksg_gao(x, y, k=5):
    """Gao et al.'s Mixed_KSG (mixed.py of github.com/wgao9/mixed_KSG), Python 3."""
    N = len(x)
    if x.ndim == 1:
        x = x.reshape((N, 1))
    if y.ndim == 1:
        y = y.reshape((N, 1))
    data = np.concatenate((x, y), axis=1)
    tree_xy = ss.cKDTree(data)
    tree_x = ss.cKDTree(x)
    tree_y = ss.cKDTree(y)
    knn_dis = [tree_xy.query(point, k + 1, p=float('inf'))[0][k] for point in data]
    ans = 0
    for i in range(N):
        kp, nx, ny = k, k, k
        if knn_dis[i] == 0:
            kp = len(tree_xy.query_ball_point(data[i], 1e-15, p=float('inf')))
            nx = len(tree_x.query_ball_point(x[i], 1e-15, p=float('inf')))
            ny = len(tree_y.query_ball_point(y[i], 1e-15, p=float('inf')))
        else:
            nx = len(tree_x.query_ball_point(x[i], knn_dis[i] - 1e-15, p=float('inf')))
            ny = len(tree_y.query_ball_point(y[i], knn_dis[i] - 1e-15, p=float('inf')))
        ans += (digamma(kp) + np.log(N) - digamma(nx) - digamma(ny)) / N
    return ans
