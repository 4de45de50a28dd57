import { KubeConfig } from "@kubernetes/client-node";

/** The cluster as kubectl would find it: $KUBECONFIG, ~/.kube/config, or the pod's service account in-cluster. */
export function defaultKubeConfig(): KubeConfig {
  const config = new KubeConfig();
  config.loadFromDefault();
  return config;
}
