"""Lists the workloads of a cluster through the Kubernetes API."""
from __future__ import annotations

from dataclasses import dataclass

from kubernetes_asyncio import client


@dataclass(frozen=True, slots=True)
class Workload:
    namespace: str
    kind: str
    name: str
    containers: tuple[str, ...]


async def list_workloads(apps: client.AppsV1Api) -> list[Workload]:
    found: list[Workload] = []
    deployments = await apps.list_deployment_for_all_namespaces()
    for item in deployments.items:
        found.append(
            Workload(
                namespace=item.metadata.namespace,
                kind="Deployment",
                name=item.metadata.name,
                containers=tuple(c.name for c in item.spec.template.spec.containers),
            )
        )
    statefulsets = await apps.list_stateful_set_for_all_namespaces()
    for item in statefulsets.items:
        found.append(
            Workload(
                namespace=item.metadata.namespace,
                kind="StatefulSet",
                name=item.metadata.name,
                containers=tuple(c.name for c in item.spec.template.spec.containers),
            )
        )
    return found
