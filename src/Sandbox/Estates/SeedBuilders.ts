/**
 * The calm estate's builders beside the one on prod-02 (Seed.ts seeds it): an arm64 machine the
 * service reaches at its own address, and AWS instances it starts for a build and stops after;
 * and the docs' preview, a deployment of the docs-image build's image, not deployed yet.
 * Made after the rest, so that the ids of what Seed.ts makes stay as they were.
 */
import type { World } from "../World/World.js"

export const seedBuilders = (world: World) => {
  const { store } = world
  // Its agent is known by its public key (the service's v2 agents), with no passkey.
  store.create("builder", "arm-builder", {
    config: {
      type: "Url",
      params: { address: "https://10.0.3.31:8120", periphery_public_key: "MCowBQYDK2VuAyEA8c2f5e0b7a4d1963" },
    },
  })
  store.create("builder", "aws-builder", {
    config: {
      type: "Aws",
      params: {
        region: "eu-west-1",
        instance_type: "c5.2xlarge",
        ami_id: "ami-0c1f2e3d4b5a69788",
        subnet_id: "subnet-0a1b2c3d4e5f60718",
        key_pair_name: "builders",
        security_group_ids: ["sg-0f1e2d3c4b5a69788"],
        assign_public_ip: false,
        use_https: true,
        port: 8120,
      },
    },
  })
  // Of the build's latest version (0.0.0), redeployed on each build, beside the docs on prod-02.
  store.create("deployment", "docs-preview", {
    config: {
      server_id: store.find("server", "prod-02").id,
      image: {
        type: "Build",
        params: { build_id: store.find("build", "docs-image").id, version: { major: 0, minor: 0, patch: 0 } },
      },
      redeploy_on_build: true,
      ports: "8082:80",
    },
    info: { state: "not_deployed" },
  })
}
