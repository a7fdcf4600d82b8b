"""BND201 fix, Django REST framework: `max_length=N` on list fields and nested serializers."""
from rest_framework import serializers
from rest_framework.views import APIView


class TagSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=50)


class BulkTagSerializer(serializers.Serializer):
    aliases = serializers.ListField(child=serializers.CharField())  # error: BND201 col 5
    tags = TagSerializer(many=True)  # error: BND201 col 5
    owners = serializers.ListSerializer(child=serializers.IntegerField())  # error: BND201 col 5
    labels = serializers.DictField(child=serializers.CharField())  # error: BND201 col 5 (not fixable: DictField takes no cap)
    users = serializers.PrimaryKeyRelatedField(many=True, queryset=None)  # error: BND201 col 5 (not fixable: no cap on a related field)


class BulkTagView(APIView):
    def post(self, request):
        serializer = BulkTagSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return serializer.data
