import threading

from django.http import JsonResponse
from django.views import View


def reindex(order_id):
    pass


def order_list(request):
    ids = request.GET.getlist("id")[:100]
    return JsonResponse({"ids": ids})


class OrderView(View):
    def post(self, request):
        for order_id in request.POST.getlist("order"):
            threading.Thread(target=reindex, args=(order_id,)).start()
        return JsonResponse({"ok": True})
