"""Billing views."""
from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.views.decorators.http import require_POST

from .exports import start_period_export


@login_required
@require_POST
def export_period(request, period: str):
    started = start_period_export(period)
    return JsonResponse({"period": period, "started": started}, status=202)
