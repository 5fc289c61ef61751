/**
 * @generated SignedSource<<3db72a16f0da0712721e4fe1664ad6d2>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ReaderFragment } from 'relay-runtime';
import { FragmentRefs } from "relay-runtime";
export type ProjectCycle_customer$data = {
  readonly projects: {
    readonly edges: ReadonlyArray<{
      readonly node: {
        readonly customer: {
          readonly projects: {
            readonly edges: ReadonlyArray<{
              readonly node: {
                readonly " $fragmentSpreads": FragmentRefs<"ProjectCycle_project">;
              };
            }>;
          };
        } | null | undefined;
      };
    }>;
  };
  readonly " $fragmentType": "ProjectCycle_customer";
};
export type ProjectCycle_customer$key = {
  readonly " $data"?: ProjectCycle_customer$data;
  readonly " $fragmentSpreads": FragmentRefs<"ProjectCycle_customer">;
};

const node: ReaderFragment = {
  "argumentDefinitions": [],
  "kind": "Fragment",
  "metadata": null,
  "name": "ProjectCycle_customer",
  "selections": [
    {
      "alias": null,
      "args": null,
      "concreteType": "CustomerProjectsConnection",
      "kind": "LinkedField",
      "name": "projects",
      "plural": false,
      "selections": [
        {
          "alias": null,
          "args": null,
          "concreteType": "CustomerProjectsConnectionEdge",
          "kind": "LinkedField",
          "name": "edges",
          "plural": true,
          "selections": [
            {
              "alias": null,
              "args": null,
              "concreteType": "Project",
              "kind": "LinkedField",
              "name": "node",
              "plural": false,
              "selections": [
                {
                  "alias": null,
                  "args": null,
                  "concreteType": "Customer",
                  "kind": "LinkedField",
                  "name": "customer",
                  "plural": false,
                  "selections": [
                    {
                      "alias": null,
                      "args": null,
                      "concreteType": "CustomerProjectsConnection",
                      "kind": "LinkedField",
                      "name": "projects",
                      "plural": false,
                      "selections": [
                        {
                          "alias": null,
                          "args": null,
                          "concreteType": "CustomerProjectsConnectionEdge",
                          "kind": "LinkedField",
                          "name": "edges",
                          "plural": true,
                          "selections": [
                            {
                              "alias": null,
                              "args": null,
                              "concreteType": "Project",
                              "kind": "LinkedField",
                              "name": "node",
                              "plural": false,
                              "selections": [
                                {
                                  "args": null,
                                  "kind": "FragmentSpread",
                                  "name": "ProjectCycle_project"
                                }
                              ],
                              "storageKey": null
                            }
                          ],
                          "storageKey": null
                        }
                      ],
                      "storageKey": null
                    }
                  ],
                  "storageKey": null
                }
              ],
              "storageKey": null
            }
          ],
          "storageKey": null
        }
      ],
      "storageKey": null
    }
  ],
  "type": "Customer",
  "abstractKey": null
};

(node as any).hash = "b8291be88471888bc76b37482cff37c1";

export default node;
